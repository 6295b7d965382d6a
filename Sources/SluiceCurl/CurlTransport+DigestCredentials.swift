import Foundation
import Sluice

extension CurlTransport {
    /// A user name and password curl answers HTTP Digest challenges with (RFC 7616: a 401 with
    /// `WWW-Authenticate: Digest …`), for one origin only: a request to any other scheme, host
    /// or port (a redirect elsewhere) never gets them. curl sends the request again with the
    /// answer itself, so the chain sees one exchange, and the credentials are never in a field
    /// a middleware or a log could see.
    ///
    /// ```swift
    /// import Foundation
    /// import SluiceCurl
    ///
    /// var configuration = CurlTransport.Configuration()
    /// configuration.digestCredentials = .init(user: "ann", password: secret, for: URL(string: "https://api.example.com")!)
    /// ```
    public struct DigestCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// The user name.
        public var user: String
        /// The password (never shown by `description`).
        public var password: String
        /// The scheme, host and port they are for.
        public let scheme: String, host: String, port: Int

        /// Credentials for the origin of `url`.
        public init(user: String, password: String, for url: URL) {
            self.user = user
            self.password = password
            scheme = url.scheme?.lowercased() ?? "http"
            host = url.host?.lowercased() ?? ""
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        /// Whether `url` is on their origin.
        public func covers(_ url: URL) -> Bool {
            let otherScheme = url.scheme?.lowercased() ?? ""
            return otherScheme == scheme && url.host?.lowercased() == host && (url.port ?? (otherScheme == "https" ? 443 : 80)) == port
        }

        public var description: String { "DigestCredentials(user: \(user), password: \(Redaction.placeholder), for: \(scheme)://\(host):\(port))" }

        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
    }
}
