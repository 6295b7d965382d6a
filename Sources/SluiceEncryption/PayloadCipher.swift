import Foundation
import Sluice

/// A way to encrypt request bodies and decrypt response bodies, plugged into
/// ``PayloadEncryptionMiddleware``: RFC 8188's ``AES128GCMContentCoding``, JOSE's
/// ``JWECompactCipher``, or an in-house scheme that conforms.
///
/// ```swift
/// import Sluice
/// import SluiceEncryption
///
/// struct AcmeCipher: PayloadCipher {
///     func encrypt(_ request: HTTPRequest) async throws -> HTTPRequest { request }
///     func isEncrypted(_ response: HTTPResponse) -> Bool { response.headers["X-Acme-Sealed"] != nil }
///     func decrypt(_ response: HTTPResponse) async throws -> HTTPResponse { response }
/// }
/// ```
public protocol PayloadCipher: Sendable {
    /// `request` with its body encrypted and the fields that say so (`Content-Encoding`,
    /// `Content-Type`) set.
    ///
    /// - Throws: `SluiceError`, `.misconfigured` for a body or key it cannot use.
    func encrypt(_ request: HTTPRequest) async throws -> HTTPRequest

    /// Whether `response`'s body is in this cipher's format.
    func isEncrypted(_ response: HTTPResponse) -> Bool

    /// Whether `request`'s body is already in this cipher's format (sealed ahead of time, as the
    /// outbox keeps a write): ``PayloadEncryptionMiddleware`` sends such a body as it is, never
    /// sealed twice. `false` by default; a cipher that cannot tell cannot have its writes kept by
    /// the outbox.
    func isSealed(_ request: HTTPRequest) -> Bool

    /// `response` with its body decrypted and the fields that described the encryption removed.
    ///
    /// - Throws: `SluiceError` `.invalidResponse` naming what is wrong (never the key).
    func decrypt(_ response: HTTPResponse) async throws -> HTTPResponse

    /// Throws when `response`'s content codings are listed in an order this cipher cannot undo
    /// where it sits (inside gzip, outside signing): codings are undone last first, so a cipher
    /// whose coding is not the last listed would be handed another coding's bytes. Nothing by
    /// default.
    func checkCodingOrder(of response: HTTPResponse) throws
}

extension PayloadCipher {
    /// Accepts any order.
    public func checkCodingOrder(of response: HTTPResponse) throws {}

    /// Cannot tell: `false`.
    public func isSealed(_ request: HTTPRequest) -> Bool { false }
}

extension HTTPFields {
    /// The content codings listed in `Content-Encoding`, in order, `identity` left out.
    var contentCodings: [String] {
        values(for: "Content-Encoding").flatMap { $0.split(separator: ",").map { $0.trimmingOptionalWhitespace() } }
            .filter { !$0.isEmpty && $0.lowercased() != "identity" }
    }
}
