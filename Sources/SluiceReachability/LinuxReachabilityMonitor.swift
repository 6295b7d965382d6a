import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// Reachability on Linux, from the kernel: a netlink socket (`NETLINK_ROUTE`, the link, IPv4/IPv6
/// address and route groups) tells when anything changes, and the status is then worked out again:
/// reachable when a non-loopback interface is up with an address and there is a default route
/// (`/proc/net/route`, `/proc/net/ipv6_route`). The interface kind comes from `/sys/class/net`
/// (`wireless/` present: wireless; an Ethernet-type device: wired; else other).
///
/// ```swift
/// import SluiceReachability
///
/// let monitor = try LinuxReachabilityMonitor()
/// monitor.status                       // .reachable(.wired)
/// for await status in monitor.statusUpdates { print(status) }
/// ```
public final class LinuxReachabilityMonitor: ReachabilityMonitor {
    private struct State {
        var status = ReachabilityStatus.unknown
        var subscribers: [UInt64: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var stopped = false
    }

    private let state = Locked(State())
    private let socket: Int32

    /// Opens the netlink socket and works out the status.
    ///
    /// - Throws: ``ReachabilityError`` when the socket cannot be opened or bound.
    public init() throws(ReachabilityError) {
        let netlinkRoute: Int32 = 0  // NETLINK_ROUTE
        let fd = Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), netlinkRoute)
        guard fd >= 0 else { throw ReachabilityError("cannot open a netlink socket: \(String(cString: strerror(errno)))") }
        // sockaddr_nl: family, pad, pid, groups (RTMGRP_LINK | IPV4_IFADDR | IPV4_ROUTE | IPV6_IFADDR | IPV6_ROUTE).
        var address = NetlinkAddress(family: UInt16(AF_NETLINK), pad: 0, pid: 0, groups: 0x1 | 0x10 | 0x40 | 0x100 | 0x400)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<NetlinkAddress>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ReachabilityError("cannot bind the netlink socket: \(reason)")
        }
        // A receive timeout lets the listening thread notice `stop()` (closing the socket does not
        // wake a blocked receive).
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        socket = fd
        state.withLock { $0.status = Self.evaluate() }
        let thread = Thread { [weak self] in Self.listen(fd, monitor: self) }
        thread.name = "sluice-reachability"
        thread.start()
    }

    deinit { stop() }

    public var status: ReachabilityStatus { state.withLock { $0.status } }

    public var statusUpdates: AsyncStream<ReachabilityStatus> {
        AsyncStream { continuation in
            let id = state.withLock { state -> UInt64? in
                guard !state.stopped else { return nil }
                state.nextSubscriber += 1
                state.subscribers[state.nextSubscriber] = continuation
                continuation.yield(state.status)
                return state.nextSubscriber
            }
            guard let id else { return continuation.finish() }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        }
    }

    /// Stops listening; the update streams finish. The socket closes when the listening thread
    /// notices (within 0.2 s).
    public func stop() {
        let subscribers = state.withLock { state -> [AsyncStream<ReachabilityStatus>.Continuation] in
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// On the monitor's thread: every netlink message means something may have changed. Holds the
    /// monitor weakly, so dropping it stops the thread; the thread owns and closes the socket.
    private static func listen(_ fd: Int32, monitor: LinuxReachabilityMonitor?) {
        weak let monitor = monitor
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard let current = monitor, !current.isStopped else { return }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return
            }
            // Several changes come in a burst; let it settle, then look once.
            usleep(20_000)
            current.update(evaluate())
        }
    }

    private func update(_ status: ReachabilityStatus) {
        let subscribers = state.withLock { state -> [AsyncStream<ReachabilityStatus>.Continuation] in
            guard state.status != status else { return [] }
            state.status = status
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(status) }
    }

    // MARK: Looking

    /// The status from the interfaces, their addresses and the routing tables.
    static func evaluate() -> ReachabilityStatus {
        guard let route = defaultRouteInterface() else { return .unreachable }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return .unknown }
        defer { freeifaddrs(list) }
        var usable = Set<String>()
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = current.pointee.ifa_flags
            guard flags & UInt32(IFF_UP) != 0, flags & UInt32(IFF_LOOPBACK) == 0,
                let address = current.pointee.ifa_addr,
                address.pointee.sa_family == UInt16(AF_INET) || address.pointee.sa_family == UInt16(AF_INET6)
            else { continue }
            usable.insert(String(cString: current.pointee.ifa_name))
        }
        guard usable.contains(route) else { return .unreachable }
        return .reachable(kind(of: route))
    }

    /// The interface of a default route (IPv4, else IPv6), or nil.
    static func defaultRouteInterface() -> String? {
        if let table = SystemFile.text("/proc/net/route") {
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                // Iface Destination Gateway Flags …: destination 0.0.0.0 and RTF_UP.
                if fields.count > 3, fields[1] == "00000000", let flags = Int(fields[3], radix: 16), flags & 0x1 != 0 {
                    return String(fields[0])
                }
            }
        }
        if let table = SystemFile.text("/proc/net/ipv6_route") {
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // destination ::/0, not the loopback device.
                if fields.count >= 10, fields[0] == "00000000000000000000000000000000", fields[1] == "00", fields[9] != "lo" {
                    return String(fields[9])
                }
            }
        }
        return nil
    }

    /// wireless when `/sys/class/net/<name>/wireless` exists; wired for an Ethernet-type device
    /// (`type` 1); other otherwise.
    static func kind(of interface: String) -> ReachabilityStatus.Interface {
        let folder = "/sys/class/net/" + interface
        if FileManager.default.fileExists(atPath: folder + "/wireless") || FileManager.default.fileExists(atPath: folder + "/phy80211") {
            return .wireless
        }
        if let type = SystemFile.text(folder + "/type"),
            type.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        {
            return .wired
        }
        return .other
    }
}

/// `struct sockaddr_nl` from `<linux/netlink.h>`.
struct NetlinkAddress {
    var family: UInt16
    var pad: UInt16
    var pid: UInt32
    var groups: UInt32
}
