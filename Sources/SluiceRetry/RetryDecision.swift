import Foundation

/// What to do after an attempt.
public enum RetryDecision: Sendable, Hashable {
    /// Send the request again after this delay.
    case retry(after: Duration)
    /// Return this attempt's response or error.
    case stop
}
