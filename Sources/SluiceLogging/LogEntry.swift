import Sluice

/// One finished call as a sink that keeps fields sees it (SluiceSwiftLog's `Logger` sink): the
/// rendered text, and the values a log handler indexes, every one as redacted as the text.
package struct LogEntry: Sendable {
    package enum Outcome: String, Sendable {
        case ok, failed, cancelled
    }

    /// The record as the configured format writes it, secrets hidden.
    package let text: String
    /// The logger's level when it wrote the record.
    package let level: LogLevel
    package let outcome: Outcome
    package let method: String
    /// The URL as the redaction shows it.
    package let url: String
    package let status: Int?
    package let milliseconds: Double
    /// What modules attached to the answer and report (``Sluice/ReportedAttachmentKey``): the
    /// retries, the hedges, what the cache did.
    package let reported: [(name: String, value: ReportedValue)]
    /// `network`, `cache` or `revalidated`.
    package let source: String?
    package let requestID: UInt64
    package let operation: String?
    /// The `SluiceError` code of a failure.
    package let errorCode: String?
    /// The stage a failure came from.
    package let stage: String?
}

/// Where entries go, and which ones the receiver would drop (so they are not rendered).
package struct LogEntrySink: Sendable {
    /// Whether an entry written at this level would be kept; `failure` is `true` for a failed call.
    package let wants: @Sendable (_ level: LogLevel, _ failure: Bool) -> Bool
    package let write: @Sendable (LogEntry) -> Void

    package init(wants: @escaping @Sendable (_ level: LogLevel, _ failure: Bool) -> Bool, write: @escaping @Sendable (LogEntry) -> Void) {
        self.wants = wants
        self.write = write
    }
}

extension LogRecord {
    func entry(_ configuration: LoggingMiddleware.Configuration, text: String) -> LogEntry {
        var response: HTTPResponse?, errorCode: String?, stage: String?
        let outcome: LogEntry.Outcome
        switch self.outcome {
        case .response(let answer):
            (outcome, response) = (.ok, answer)
        case .failure(let error):
            let failure = error as? SluiceError
            (outcome, errorCode, stage) = (.failed, failure?.code.rawValue ?? "other", failure?.stage?.description)
        case .cancelled:
            outcome = .cancelled
        }
        return LogEntry(
            text: text, level: configuration.level, outcome: outcome, method: request.method.rawValue,
            url: configuration.redaction.url(text: request.urlText), status: response?.status.code, milliseconds: milliseconds,
            reported: response.map { $0.attachments.isEmpty ? [] : $0.attachments.reported } ?? [], source: response?.source.description, requestID: requestID,
            operation: request.operationName, errorCode: errorCode, stage: stage)
    }
}

extension LogRecord.Outcome {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
