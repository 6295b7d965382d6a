/// The per-request switch behind ``HTTPRequest/sendsCredentials``.
///
/// ```swift
/// import Sluice
///
/// // In a middleware that adds a credential:
/// if request.sendsCredentials { try request.headers.set(name: "X-Api-Key", value: apiKey) }
/// ```
public enum SendsCredentialsKey: RequestOptionKey {
    public static let defaultValue = true
}

extension HTTPRequest {
    /// Whether middleware may add credentials (tokens, signatures, API keys) to this request.
    /// ``RedirectMiddleware`` turns it off for the rest of the call once a redirect leaves the
    /// origin (scheme, host and port) the call started at; signing and auth middleware then add
    /// nothing, so another host never receives them.
    public var sendsCredentials: Bool {
        get { options[SendsCredentialsKey.self] }
        set { options[SendsCredentialsKey.self] = newValue }
    }
}
