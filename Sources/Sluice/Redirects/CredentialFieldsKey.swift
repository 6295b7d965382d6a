/// The per-request set behind ``HTTPRequest/credentialFields``.
///
/// ```swift
/// import Sluice
///
/// // In a middleware that adds an API key:
/// try request.headers.set(name: "X-Api-Key", value: apiKey)
/// request.credentialFields.insert("x-api-key")
/// ```
public enum CredentialFieldsKey: RequestOptionKey {
    public static let defaultValue: Set<String> = []
}

extension HTTPRequest {
    /// The names (lowercase) of header fields a middleware added that carry credentials.
    /// ``RedirectMiddleware`` removes them, with `Authorization`, `Cookie`, `Proxy-Authorization`
    /// and the other fields ``Redaction/default`` hides, when a redirect leaves the origin.
    public var credentialFields: Set<String> {
        get { options[CredentialFieldsKey.self] }
        set { options[CredentialFieldsKey.self] = newValue }
    }
}
