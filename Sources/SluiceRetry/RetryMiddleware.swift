import Foundation
import Sluice

/// Sends a request again when its ``RetryPolicy`` says so, within a shared ``RetryBudget``.
///
/// - Each retry counts in `context.attempt` (1 for the first attempt), and the answer carries
///   `response.attempts`, which logs, traces and metrics report as `retries`.
/// - It never sleeps past the context's deadline: a retry that would start too late is not made.
/// - The sleep before a retry is cancellable: a cancelled task stops at once with
///   `CancellationError`.
///
/// ```swift
/// import Sluice
/// import SluiceRetry
///
/// let budget = RetryBudget()
/// builder.add(RetryMiddleware(policy: DefaultRetryPolicy(), budget: budget))     // position .retry
/// ```
public struct RetryMiddleware: Middleware {
    public static let defaultPosition = MiddlewarePosition.retry
    public static let readsOptions: [any RequestOptionKey.Type] = [RetriesNonIdempotentKey.self]

    /// Decides whether and when to retry.
    public let policy: any RetryPolicy
    /// Limits retries across every call that shares it.
    public let budget: RetryBudget

    /// Retries as `policy` says, within `budget`.
    public init(policy: any RetryPolicy = DefaultRetryPolicy(), budget: RetryBudget = RetryBudget()) {
        self.policy = policy
        self.budget = budget
    }

    /// - Throws: what the last attempt threw; `.misconfigured` for a budget whose ratio or
    ///   minimum is NaN, before anything is sent.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        if let misconfiguration = budget.misconfiguration { throw misconfiguration }
        budget.recordRequest()
        var context = context
        var attempt = 1
        while true {
            let outcome: Result<HTTPResponse, any Error>
            do { outcome = .success(try await next(request, context)) } catch { outcome = .failure(error) }
            guard case .retry(let delay) = policy.decision(for: request, attempt: attempt, outcome: outcome),
                fitsDeadline(delay, context), budget.withdraw()
            else {
                var response = try outcome.get()
                if attempt > 1 { response.attempts = attempt }
                return response
            }
            try await Task.sleep(clamping: delay)
            attempt += 1
            context.attempt = context.attempt == .max ? .max : context.attempt + 1
        }
    }

    /// Whether a retry after `delay` still starts before the context's deadline.
    private func fitsDeadline(_ delay: Duration, _ context: RequestContext) -> Bool {
        guard let remaining = context.remainingTime else { return true }
        return delay < remaining
    }
}
