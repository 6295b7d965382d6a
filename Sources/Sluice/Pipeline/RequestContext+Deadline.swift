import Foundation

// How a call cut off by its deadline is told: one story, whichever stage noticed first.

extension RequestContext {
    /// How close to the deadline a stage's own `.timedOut` still counts as the deadline's: curl
    /// measures its timeout from its own start, in whole milliseconds.
    static let deadlineTolerance: Duration = .milliseconds(20)

    /// Whether `deadline` has passed, within ``deadlineTolerance``; never without one.
    package static func hasPassed(_ deadline: ContinuousClock.Instant?) -> Bool {
        guard let deadline else { return false }
        return ContinuousClock.now.advanced(by: deadlineTolerance) >= deadline
    }

    /// What a stage records (a log line, a metric, a span) for a call under this context that
    /// ended with `error`. Once the call's deadline has passed, a cancellation (the client's
    /// watchdog ends a call that way) and a `.timedOut` from any stage (curl's timer, set from the
    /// same deadline) are both the deadline's one `.timedOut`, the error the caller gets: one
    /// code, one level, one outcome, whichever stage noticed first. Any other error is itself.
    package func recorded(_ error: any Error, for request: HTTPRequest) -> any Error {
        guard Self.hasPassed(deadline), SluiceError.isCancellation(error) || (error as? SluiceError)?.code == .timedOut else { return error }
        return SluiceError(.timedOut, "\(request) did not finish within its deadline", stage: .client)
    }

    /// What a stage records as the failure of a streamed body that ended with `error`: `nil`
    /// when it was read to its end, or let go before it (the answer came, and its status is the
    /// call's outcome); else the error as ``recorded(_:for:)`` tells it (past the deadline, the
    /// deadline's `.timedOut`).
    package func streamFailure(_ error: (any Error)?, for request: HTTPRequest) -> (any Error)? {
        guard let error else { return nil }
        let recorded = recorded(error, for: request)
        return SluiceError.isCancellation(recorded) ? nil : recorded
    }
}
