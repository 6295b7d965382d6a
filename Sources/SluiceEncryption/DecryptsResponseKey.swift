import Sluice

/// The per-request switch behind `HTTPRequest.decryptsResponse`, read by
/// ``PayloadEncryptionMiddleware``.
///
/// ```swift
/// import Sluice
/// import SluiceEncryption
///
/// var request = HTTPRequest(url: url)
/// request.decryptsResponse = false   // keep the encrypted bytes, to store them as they are
/// ```
public enum DecryptsResponseKey: RequestOptionKey {
    public static let defaultValue: Bool? = nil
    public static let reader: OptionReader? = OptionReader(
        property: "request.decryptsResponse", middleware: "PayloadEncryptionMiddleware", module: "SluiceEncryption")
}

extension HTTPRequest {
    /// Whether ``PayloadEncryptionMiddleware`` decrypts this request's response when it is in
    /// the cipher's format: `nil` (the default) as its configuration says.
    public var decryptsResponse: Bool? {
        get { options[DecryptsResponseKey.self] }
        set { options[DecryptsResponseKey.self] = newValue }
    }
}
