import Foundation
import Sluice

/// The credentials curl adds on its own, shown to the chain: a password in the URL (sent as
/// Basic), ``Configuration-swift.struct/digestCredentials`` for their origin, and a TLS client
/// certificate, so a shared cache above treats such a request as one that carries credentials.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceCurl
///
/// let added = await CurlTransport().credentials(for: HTTPRequest(url: URL(string: "https://ann:pw@api.example.com/me")!))
/// added?.fields   // ["authorization"]
/// ```
extension CurlTransport: CredentialSource {
    /// The fields and the identity curl will add to `request`; `nil` when it adds none.
    public func credentials(for request: HTTPRequest) async -> AddedCredentials? {
        var parts: [String] = []
        var fields: Set<String> = []
        if let user = request.url.user {
            parts.append("userinfo \(user):\(request.url.password ?? "")")
            fields.insert("authorization")
        }
        if let digest = configuration.digestCredentials, digest.covers(request.url) {
            parts.append("digest \(digest.user):\(digest.password)")
            fields.insert("authorization")
        }
        if let certificate = configuration.tls.clientCertificate {
            parts.append("certificate \(certificate.path)")
        }
        return parts.isEmpty ? nil : AddedCredentials(fields: fields, identity: parts.joined(separator: "\n"))
    }
}
