/// Which bodies of a call went over the wire end-to-end encrypted, attached to its answer by
/// whichever module encrypted them (SluiceEncryption's `PayloadEncryptionMiddleware`). A rule of
/// the privacy policy, not of one module: recorders and logs read it to leave the plaintext out.
package enum ConfidentialityKey: AttachmentKey {
    package struct Value: Sendable, Equatable {
        /// The answer's body, and so the request's too.
        package var bodies = false
        /// The request's body, whatever came back.
        package var requestBody = false
    }

    package static let defaultValue = Value()
}

extension HTTPResponse {
    /// Whether this body came over the wire end-to-end encrypted (a payload encryption
    /// middleware decrypted it), and so the request's too: what the app sees is plaintext the
    /// server meant for it alone, so recorders (a HAR file) and logs leave both bodies out. A plain
    /// answer to an encrypted request is not confidential (see ``requestBodyWasConfidential``).
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    ///
    /// var response = HTTPResponse(status: .ok, body: Data("plaintext".utf8))
    /// response.bodiesAreConfidential = true   // what an encryption middleware sets
    /// response.requestBodyWasConfidential     // true: the request was encrypted too
    /// ```
    public var bodiesAreConfidential: Bool {
        get { attachments[ConfidentialityKey.self].bodies }
        set { attachments[ConfidentialityKey.self].bodies = newValue }
    }

    /// Whether the request's body went over the wire end-to-end encrypted, whatever came back:
    /// recorders and logs leave the request's plaintext out.
    public var requestBodyWasConfidential: Bool {
        get {
            let confidentiality = attachments[ConfidentialityKey.self]
            return confidentiality.requestBody || confidentiality.bodies
        }
        set { attachments[ConfidentialityKey.self].requestBody = newValue }
    }
}
