import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Plain TCP on 127.0.0.1 for tests: connecting to a port, and finding one nothing listens on.
///
/// ```swift
/// let port = Loopback.freePort()                 // for a server the test starts itself
/// try await Wait.until("it listens") { Loopback.accepts(port) }
/// ```
package enum Loopback {
    /// A TCP socket connected to 127.0.0.1:`port`, or nil when nothing accepts there. Close it.
    package static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    package static func accepts(_ port: Int) -> Bool {
        guard let fd = connect(port: port) else { return false }
        close(fd)
        return true
    }

    /// A port free at this moment: bound, read and released, for a server the test starts itself.
    /// Another test's server may take it first: wait for the server with
    /// ``listens(_:process:)``, never with ``accepts(_:)``.
    package static func freePort() -> Int { RefusedPort().port }

    /// Whether process `pid` itself listens on TCP `port` (one of its open files is the listening
    /// socket). ``accepts(_:)`` is true for whatever took the port: when two tests pick the same
    /// free port, the second one's server fails to bind and exits, and the test would go on against
    /// the first one's server.
    package static func listens(_ port: Int, process pid: Int32) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let suffix = ":" + String(format: "%04X", port)
        // Columns: sl, local address (hex IP:port), remote address, state (0A: listening), …, inode (10th).
        let inodes = table.split(separator: "\n").dropFirst().compactMap { line -> Substring? in
            let columns = line.split(separator: " ")
            guard columns.count > 9, columns[1].hasSuffix(suffix), columns[3] == "0A" else { return nil }
            return columns[9]
        }
        guard !inodes.isEmpty, let files = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return false }
        let sockets = Set(inodes.map { "socket:[\($0)]" })
        return files.contains { file in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(file)")).map(sockets.contains) ?? false
        }
    }

    /// A port held bound and never listened on: a connection to it is refused, and no server of
    /// another test can take it while this one runs (a port freed at once can be picked up by a
    /// parallel test's server, and then some "refused" calls succeed). Released when dropped.
    package final class RefusedPort: Sendable {
        /// The port.
        package let port: Int
        private let socket: Int32

        package init() {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { [socket] in
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(socket, pointer, length)
                    return getsockname(socket, pointer, &length)
                }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        /// `http://127.0.0.1:<port><path>`.
        package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

        deinit { close(socket) }
    }
}
