import Sluice

/// How many attempts ``RetryMiddleware`` made for an answer, which it attaches when it retried.
/// Reported as the retries after the first attempt: `sluice.retries` on a span (SluiceTracing),
/// `http_client_retries_total` (SluiceMetrics), `retries` in a log record (SluiceLogging).
package enum AttemptsKey: ReportedAttachmentKey {
    package static let defaultValue = 1
    package static let reportName = "retries"
    package static func report(_ value: Int) -> ReportedValue? { value > 1 ? .count(value - 1) : nil }
}

extension HTTPResponse {
    /// How many attempts ``RetryMiddleware`` made before this answer: 1 unless it retried.
    /// Logs, traces and metrics report the retries, `attempts - 1`, when there were any.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceRetry
    ///
    /// let response = try await client.get("feed")   // a client with a RetryMiddleware
    /// if response.attempts > 1 { print("answered after \(response.attempts - 1) retries") }
    /// ```
    public var attempts: Int {
        get { attachments[AttemptsKey.self] }
        set { attachments[AttemptsKey.self] = newValue }
    }
}
