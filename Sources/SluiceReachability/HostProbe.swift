import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// "Can I reach my API host?": a TCP connection to a host and port, within a timeout.
///
/// ```swift
/// import SluiceReachability
///
/// let probe = HostProbe(host: "api.example.com", port: 443)
/// if await probe.isReachable() { print("the API answers") }
/// ```
public struct HostProbe: Sendable {
    /// The host probed.
    public let host: String
    /// The port probed.
    public let port: UInt16
    /// The longest wait for a connection.
    public let timeout: Duration

    /// Probes `host`:`port`, waiting at most `timeout`.
    public init(host: String, port: UInt16, timeout: Duration = .seconds(3)) {
        self.host = host
        self.port = port
        self.timeout = timeout
    }

    /// Whether a TCP connection to the host succeeds within the timeout (run off the caller's thread).
    public func isReachable() async -> Bool {
        let (host, port, timeout) = (self.host, self.port, self.timeout)
        let reachable = try? await ThreadSanitizer.withContinuation { continuation in
            DispatchQueue.global().async { ThreadSanitizer.resume(continuation, with: .success(Self.connect(host, port, timeout))) }
        }
        return reachable ?? false
    }

    static func connect(_ host: String, _ port: UInt16, _ timeout: Duration) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return false }
        defer { freeaddrinfo(results) }
        let milliseconds = Int32(clamping: max(0, timeout.wholeMilliseconds))  // poll waits forever on a negative one
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            defer { entry = current.pointee.ai_next }
            let fd = socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            let started = Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen)
            if started == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&descriptor, 1, milliseconds) == 1 else { continue }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length)
            if failure == 0 { return true }
        }
        return false
    }
}
