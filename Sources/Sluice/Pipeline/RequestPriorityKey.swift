/// The per-request option behind ``HTTPRequest/priority``.
///
/// ```swift
/// import Sluice
///
/// var request = HTTPRequest(url: url)
/// request.priority = .high   // the same as request.options[RequestPriorityKey.self] = .high
/// ```
public enum RequestPriorityKey: RequestOptionKey {
    public static let defaultValue = RequestPriority.normal
}

extension HTTPRequest {
    /// The request's place in the client's queue; ``RequestPriority/normal`` by default.
    public var priority: RequestPriority {
        get { options[RequestPriorityKey.self] }
        set { options[RequestPriorityKey.self] = newValue }
    }
}
