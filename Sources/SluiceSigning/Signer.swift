import Foundation
import Sluice

/// Something that signs a request: adds the header or parameters a server checks.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceSigning
///
/// struct TeamSigner: Signer {
///     func sign(_ request: HTTPRequest, date: Date) async throws -> HTTPRequest {
///         var signed = request
///         try signed.headers.set(name: "X-Team-Signature", value: "team-\(Int(date.timeIntervalSince1970))")
///         return signed
///     }
/// }
/// ```
///
/// A signer that says whom it signs for (``identity``) lets a cache above it keep answers for two
/// identities apart even when they share one store.
public protocol Signer: Sendable {
    /// `request` signed as of `date`.
    func sign(_ request: HTTPRequest, date: Date) async throws -> HTTPRequest

    /// Whom this signer's signatures speak for, the same for every request (an access key ID
    /// and its scope; never the secret itself, though a cache keeps only its SHA-256
    /// fingerprint). `nil` by default: each request then counts as another identity's.
    var identity: String? { get }

    /// The header fields (lowercase) this signer sets: `authorization` by default.
    var addedFields: Set<String> { get }
}

extension Signer {
    /// `nil`: the signer does not say whom it signs for.
    public var identity: String? { nil }

    /// `["authorization"]`.
    public var addedFields: Set<String> { ["authorization"] }
}
