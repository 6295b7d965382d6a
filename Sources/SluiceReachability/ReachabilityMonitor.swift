/// A source of reachability: the current status and a stream of changes.
///
/// ```swift
/// import SluiceReachability
///
/// for await status in monitor.statusUpdates { print(status) }
/// ```
public protocol ReachabilityMonitor: Sendable {
    /// Whether the machine can reach the network now, and how (wired, wireless, other).
    var status: ReachabilityStatus { get }
    /// Each change of ``status``, starting with the current one.
    var statusUpdates: AsyncStream<ReachabilityStatus> { get }
}
