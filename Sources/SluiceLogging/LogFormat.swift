/// How ``LoggingMiddleware`` writes a call: lines for people, or one JSON object per line for tools.
///
/// ```swift
/// import SluiceLogging
///
/// LoggingMiddleware(level: .basic, sink: try .file(logURL), format: .jsonLines)
/// ```
public enum LogFormat: Sendable, Hashable {
    /// Human text, coloured only when the sink is a terminal.
    case text
    /// One JSON object per call and line, keys sorted: `method`, `url`, `outcome`, `status`,
    /// `bytes`, `milliseconds`, `source`, `reported` (what modules attached and report, such as
    /// `{"cache":"miss","retries":1}`, when there is any), and at higher levels `requestHeaders`,
    /// `responseHeaders`, `requestBody`, `responseBody`, `error`, `trace`; `requestLine` too
    /// when the transport recorded the head it wrote (then `requestHeaders` are that head's).
    case jsonLines
}
