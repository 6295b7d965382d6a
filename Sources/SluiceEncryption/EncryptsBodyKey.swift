import Sluice

/// The per-request switch behind `HTTPRequest.encryptsBody`, read by
/// ``PayloadEncryptionMiddleware``.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceEncryption
///
/// var request = HTTPRequest(method: .post, url: url, body: .bytes(Data(json.utf8)))
/// request.encryptsBody = false   // this endpoint takes plain bodies
/// ```
public enum EncryptsBodyKey: RequestOptionKey {
    public static let defaultValue: Bool? = nil
    public static let reader: OptionReader? = OptionReader(
        property: "request.encryptsBody", middleware: "PayloadEncryptionMiddleware", module: "SluiceEncryption")
}

extension HTTPRequest {
    /// Whether ``PayloadEncryptionMiddleware`` encrypts this request's body: `nil` (the default)
    /// as its configuration says.
    public var encryptsBody: Bool? {
        get { options[EncryptsBodyKey.self] }
        set { options[EncryptsBodyKey.self] = newValue }
    }
}
