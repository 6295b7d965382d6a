/// What a client's connections and queues hold for one origin at one moment: the figures an
/// operator graphs to see a pool run dry, from `Client.poolStatistics()` or a transport's own
/// ``HTTPTransport/poolStatistics()``.
///
/// ```swift
/// import Sluice
///
/// for origin in await client.poolStatistics() {
///     print(origin.origin, origin.openConnections, origin.busyConnections, origin.idleConnections, origin.waiting)
/// }
/// ```
public struct PoolStatistics: Sendable, Hashable {
    /// `https://api.example.com:443`: scheme, host and port, as the cache and the limits name an
    /// origin. A connection no transfer has finished on yet, and no transfer in flight owns, is
    /// counted under `unknown`.
    public package(set) var origin: String
    /// Connections open to it, busy or idle.
    public package(set) var openConnections: Int
    /// Connections carrying a transfer, or being made for one. Over HTTP/2 one connection carries
    /// many.
    public package(set) var busyConnections: Int
    /// Transfers the transport has started that have no connection yet: resolving the name,
    /// connecting, or waiting for a connection under the transport's per-host limit.
    public package(set) var waitingForConnection: Int
    /// Calls waiting in the client's queue (`Client.Configuration.maxConcurrentRequests`),
    /// before the chain.
    public package(set) var queuedCalls: Int
    /// Calls a middleware of the chain holds back (``CallHolding``): waiting under a rate or
    /// concurrency limit.
    public package(set) var heldCalls: Int

    /// Open connections no transfer is using, kept for the next call.
    public var idleConnections: Int { max(0, openConnections - busyConnections) }
    /// Every call waiting for this origin: ``waitingForConnection``, ``queuedCalls`` and
    /// ``heldCalls`` (`Int.max` past it).
    public var waiting: Int {
        let (sum, overflow) = waitingForConnection.addingReportingOverflow(queuedCalls)
        let (total, overflowed) = sum.addingReportingOverflow(heldCalls)
        return overflow || overflowed ? .max : total
    }

    /// Adds `other`'s counts to these (a transport's loops, or the figures of several middleware,
    /// for one origin), each sum held at `Int.max`: no sum of reported figures traps (THREATS §12).
    package mutating func add(_ other: PoolStatistics) {
        openConnections = openConnections.addingClamped(other.openConnections)
        busyConnections = busyConnections.addingClamped(other.busyConnections)
        waitingForConnection = waitingForConnection.addingClamped(other.waitingForConnection)
        queuedCalls = queuedCalls.addingClamped(other.queuedCalls)
        heldCalls = heldCalls.addingClamped(other.heldCalls)
    }

    /// Figures for `origin`, each given or 0; a count below 0 is held to 0.
    public init(
        origin: String, openConnections: Int = 0, busyConnections: Int = 0, waitingForConnection: Int = 0, queuedCalls: Int = 0, heldCalls: Int = 0
    ) {
        self.origin = origin
        self.openConnections = max(0, openConnections)
        self.busyConnections = max(0, busyConnections)
        self.waitingForConnection = max(0, waitingForConnection)
        self.queuedCalls = max(0, queuedCalls)
        self.heldCalls = max(0, heldCalls)
    }
}
