/// The per-request redirect policy behind ``HTTPRequest/redirectPolicy``; `nil` uses the
/// ``RedirectMiddleware``'s configuration.
///
/// ```swift
/// import Sluice
///
/// var request = HTTPRequest(url: url)
/// request.redirectPolicy = .none   // see the 3xx itself
/// ```
public enum RedirectPolicyKey: RequestOptionKey {
    public static let defaultValue: RedirectPolicy? = nil
    public static let reader: OptionReader? = OptionReader(property: "request.redirectPolicy", middleware: "RedirectMiddleware", module: "Sluice")
}

extension HTTPRequest {
    /// Overrides the ``RedirectMiddleware``'s policy for this request.
    public var redirectPolicy: RedirectPolicy? {
        get { options[RedirectPolicyKey.self] }
        set { options[RedirectPolicyKey.self] = newValue }
    }
}
