/// Whether the network can be reached, and over what kind of interface.
///
/// ```swift
/// import SluiceReachability
///
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
        /// Ethernet.
        case wired
        /// Wi-Fi.
        case wireless
        /// Another kind of interface.
        case other
    }

    /// Not known yet.
    case unknown
    /// No usable interface with an address, or no default route.
    case unreachable
    /// Reachable, through this kind of interface.
    case reachable(Interface)

    /// Whether a default route is up.
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
