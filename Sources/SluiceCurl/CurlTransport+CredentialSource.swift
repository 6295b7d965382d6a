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
        // Foundation parses the URL again to answer `user`: asked only when the authority has an `@`.
        if Self.hasUserInfo(request.url.absoluteString), let user = request.url.user {
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

    /// Whether `url`'s authority (after `://`, before the path, query or fragment) holds an `@`.
    static func hasUserInfo(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
            var index = 0
            while index + 2 < bytes.count, !(bytes[index] == colon && bytes[index + 1] == slash && bytes[index + 2] == slash) { index += 1 }
            index += 3
            guard index < bytes.count else { return false }
            return bytes[index..<authorityEnd(bytes, from: index)].contains(UInt8(ascii: "@"))
        }
    }
}
