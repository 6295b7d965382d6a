/// Whether the network can be reached, and over what kind of interface.
///
/// ```swift
/// switch monitor.status {
/// case .reachable(.wireless): showWiFiIcon()
/// case .reachable: break
/// case .unreachable: showOfflineBanner()
/// case .unknown: break
/// }
/// ```
public enum ReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// The kind of interface the default route leaves by.
    public enum Interface: String, Sendable, Hashable {
        case wired
        case wireless
        case other
    }

    /// Not known yet.
    case unknown
    /// No usable interface with an address, or no default route.
    case unreachable
    case reachable(Interface)

    public var isReachable: Bool {
        if case .reachable = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .unreachable: "unreachable"
        case .reachable(let interface): "reachable(\(interface.rawValue))"
        }
    }
}

/// A source of reachability: the current status and a stream of changes.
///
/// ```swift
/// for await status in monitor.statusUpdates { print(status) }
/// ```
public protocol ReachabilityMonitor: Sendable {
    var status: ReachabilityStatus { get }
    /// Each change of ``status``, starting with the current one.
    var statusUpdates: AsyncStream<ReachabilityStatus> { get }
}
