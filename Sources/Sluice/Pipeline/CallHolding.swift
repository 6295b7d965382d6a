/// A middleware that holds calls back before they go on, as a rate or concurrency limit does:
/// how many it holds now, by origin, so `Client.poolStatistics()` counts them with the calls
/// waiting for a connection.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import Synchronization
///
/// final class MaintenanceWindow: Middleware, CallHolding {
///     private let held = Mutex([String: Int]())
///
///     func heldCalls() -> [String: Int] { held.withLock { $0 } }
///
///     func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
///         let origin = "\(request.url.scheme ?? "")://\(request.url.host ?? ""):\(request.url.port ?? 443)"
///         held.withLock { $0[origin, default: 0] += 1 }
///         try await Task.sleep(for: .seconds(1))   // held while the window lasts
///         held.withLock { $0[origin, default: 1] -= 1 }
///         return try await next(request, context)
///     }
/// }
/// ```
public protocol CallHolding: Sendable {
    /// The calls held now, by origin (`scheme://host:port`, the scheme's default port written).
    func heldCalls() -> [String: Int]
}
