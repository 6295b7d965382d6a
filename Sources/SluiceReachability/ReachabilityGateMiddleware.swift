import Foundation
import Sluice

/// Stops requests while the network is unreachable, before they touch it.
///
/// - `.failFast`: an `offline` `SluiceError` at once, with no connection attempt.
/// - `.waitForConnectivity(timeout:)`: waits for the monitor to report reachable, then proceeds;
///   `offline` when the timeout passes first, `.timedOut` when the call's deadline comes sooner.
/// - Requests to loopback (`localhost`, `127.0.0.0/8`, `::1`) always pass, told from the URL as
///   the transport sends it (curl sends `http://127.1/` to `127.0.0.1`).
/// - An `unknown` status passes: the gate only stops what it knows cannot go out.
///
/// Placed inside the cache's reach (its default position), an `offline` error lets the cache answer
/// with a stored copy where the policy allows.
///
/// ```swift
/// import Sluice
/// import SluiceReachability
///
/// let monitor = try LinuxReachabilityMonitor()
/// builder.add(ReachabilityGateMiddleware(monitor: monitor, mode: .failFast))
/// ```
public struct ReachabilityGateMiddleware: Middleware {
    /// What the gate does while the network is down.
    public enum Mode: Sendable, Hashable {
        /// Fail at once with `.offline`.
        case failFast
        /// Wait for the network up to `timeout`, then fail with `.offline`.
        case waitForConnectivity(timeout: Duration)
    }

    public static let defaultPosition = MiddlewarePosition.reachability

    /// Says whether the network is reachable.
    public let monitor: any ReachabilityMonitor
    /// What the gate does while the network is down.
    public let mode: Mode

    /// A gate over `monitor` in `mode`.
    public init(monitor: any ReachabilityMonitor, mode: Mode = .failFast) {
        self.monitor = monitor
        self.mode = mode
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard monitor.status == .unreachable, !Self.isLoopback(next.urlAsSent(request.url)) else { return try await next(request, context) }
        switch mode {
        case .failFast:
            throw SluiceError(.offline, "the network is unreachable; \(request) was not sent")
        case .waitForConnectivity(let timeout):
            // No wait outlives the call: its deadline, when nearer, bounds the wait.
            let left = context.remainingTime
            let wait = left.map { min($0, timeout) } ?? timeout
            guard try await waitForConnectivity(wait) else {
                if let left, left <= timeout {
                    throw SluiceError(
                        .timedOut, "the network stayed unreachable until the call's deadline, \(left) away; \(request) was not sent")
                }
                throw SluiceError(.offline, "the network stayed unreachable for \(timeout); \(request) was not sent")
            }
            return try await next(request, context)
        }
    }

    /// Whether the monitor reported reachable within `timeout`.
    ///
    /// - Throws: `CancellationError` when the call is cancelled while it waits.
    private func waitForConnectivity(_ timeout: Duration) async throws -> Bool {
        let updates = monitor.statusUpdates
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await status in updates where status.isReachable { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(clamping: timeout)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            // A cancelled call ends the stream's loop too: it is cancelled, not offline.
            try Task.checkCancellation()
            return first
        }
    }

    /// `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".")
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
