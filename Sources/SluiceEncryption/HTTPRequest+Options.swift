import Sluice

// PayloadEncryptionMiddleware's per-request options: each key next to its property.

/// The per-request switch behind `HTTPRequest.encryptsBody`, read by
/// ``PayloadEncryptionMiddleware``.
package enum EncryptsBodyKey: RequestOptionKey {
    package static let defaultValue = RequestOverride.asConfigured
    package static let reader: OptionReader? = OptionReader(
        property: "request.encryptsBody", middleware: "PayloadEncryptionMiddleware", module: "SluiceEncryption")
}

extension HTTPRequest {
    /// Whether ``PayloadEncryptionMiddleware`` encrypts this request's body: `.asConfigured` (the
    /// default) as its configuration says.
    public var encryptsBody: RequestOverride {
        get { options[EncryptsBodyKey.self] }
        set { options[EncryptsBodyKey.self] = newValue }
    }
}

/// The per-request switch behind `HTTPRequest.decryptsResponse`, read by
/// ``PayloadEncryptionMiddleware``.
package enum DecryptsResponseKey: RequestOptionKey {
    package static let defaultValue = RequestOverride.asConfigured
    package static let reader: OptionReader? = OptionReader(
        property: "request.decryptsResponse", middleware: "PayloadEncryptionMiddleware", module: "SluiceEncryption")
}

extension HTTPRequest {
    /// Whether ``PayloadEncryptionMiddleware`` decrypts this request's response when it is in
    /// the cipher's format: `.asConfigured` (the default) as its configuration says.
    public var decryptsResponse: RequestOverride {
        get { options[DecryptsResponseKey.self] }
        set { options[DecryptsResponseKey.self] = newValue }
    }
}
