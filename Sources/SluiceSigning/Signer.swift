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
public protocol Signer: Sendable {
    /// `request` signed as of `date`.
    func sign(_ request: HTTPRequest, date: Date) async throws -> HTTPRequest
}
