import Foundation
import Sluice

/// Decides whether an attempt is retried, and when.
///
/// ```swift
/// import Sluice
/// import SluiceRetry
///
/// struct OnlyOn503: RetryPolicy {
///     func decision(for request: HTTPRequest, attempt: Int, outcome: Result<HTTPResponse, any Error>) -> RetryDecision {
///         if case .success(let response) = outcome, response.status.code == 503, attempt < 5 { return .retry(after: .seconds(1)) }
///         return .stop
///     }
/// }
/// ```
public protocol RetryPolicy: Sendable {
    /// After attempt number `attempt` (from 1) of `request` ended with `outcome`.
    func decision(for request: HTTPRequest, attempt: Int, outcome: Result<HTTPResponse, any Error>) -> RetryDecision
}
