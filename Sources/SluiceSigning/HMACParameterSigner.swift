import Foundation
import Sluice

/// A common API-gateway signature: the request's parameters (query and form body) plus a
/// timestamp and a nonce, sorted by name, joined as `name=value&…` (RFC 3986 encoded), signed
/// with HMAC, and sent in a header or as one more parameter.
///
/// The timestamp and nonce are added to the request as parameters (query, or form body for a form
/// request), so the server can recompute the same string.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceSigning
///
/// let signer = HMACParameterSigner(configuration: .init(
///     key: Data(appSecret.utf8), digest: .sha256, encoding: .hex, placement: .parameter("sign")
/// ))
/// builder.add(SigningMiddleware(signer: signer))
/// ```
public struct HMACParameterSigner: Signer {
    /// How a signature is written.
    public enum Encoding: Sendable, Hashable {
        /// Lowercase hexadecimal.
        case hex
        /// Base64.
        case base64
    }

    /// Where a signature goes.
    public enum Placement: Sendable, Hashable {
        /// In this header.
        case header(String)
        /// As a parameter of this name (query, or form body for a form request).
        case parameter(String)
    }

    /// The key, the digest, and where the signature goes.
    public struct Configuration: Sendable {
        /// The shared secret.
        public var key: Data
        /// The hash under the HMAC.
        public var digest: Digest
        /// How the signature is written.
        public var encoding: Encoding
        /// Where the signature goes.
        public var placement: Placement
        /// The names of the timestamp and nonce parameters.
        public var timestampName: String
        /// The name of the nonce parameter.
        public var nonceName: String
        /// A fresh nonce per request (injectable for tests).
        public var nonce: @Sendable () -> String

        /// Settings with each value given, or its default.
        public init(
            key: Data, digest: Digest = .sha256, encoding: Encoding = .hex, placement: Placement = .header("X-Signature"),
            timestampName: String = "timestamp", nonceName: String = "nonce",
            nonce: @escaping @Sendable () -> String = { SigningText.uuidNonce(dashes: true) }
        ) {
            self.key = key
            self.digest = digest
            self.encoding = encoding
            self.placement = placement
            self.timestampName = timestampName
            self.nonceName = nonceName
            self.nonce = nonce
        }
    }

    /// How it behaves.
    public let configuration: Configuration

    /// The timestamp's and the nonce's names, encoded once.
    private let encodedTimestampName: String
    private let encodedNonceName: String

    /// One with `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
        encodedTimestampName = SigningText.encode(configuration.timestampName)
        encodedNonceName = SigningText.encode(configuration.nonceName)
    }

    /// `request` with the timestamp, the nonce and the signature.
    public func sign(_ request: HTTPRequest, date: Date) throws(SluiceError) -> HTTPRequest {
        let added = [
            // Digits and perhaps a minus sign: nothing to encode.
            (name: encodedTimestampName, value: String(Int(clamping: date.timeIntervalSince1970))),
            (name: encodedNonceName, value: SigningText.encode(configuration.nonce())),
        ]
        let isForm = SigningText.isForm(request)
        let existing = SigningText.queryPairs(request.url) + (isForm ? SigningText.formPairs(request) : [])
        // What `stringToSign` reads off the signed request, without building it twice: the added
        // pairs go where `adding` puts them, and decoding gives back what encoding wrote. Each
        // added pair is encoded once, for the text signed and for the request.
        let text = SigningText.sortedAndJoined(existing.isEmpty ? added : SigningText.encoded(existing) + added)
        let signature = try configuration.digest.hmac(key: configuration.key, text, hex: configuration.encoding == .hex)
        switch configuration.placement {
        case .header(let name):
            var signed = try adding(added, to: request, inForm: isForm)
            try signed.headers.set(name: name, value: signature)
            return signed
        case .parameter(let name):
            return try adding(added + SigningText.encoded([(name, signature)]), to: request, inForm: isForm)
        }
    }

    /// The SHA-256 of the key (never the key): whom the signatures speak for.
    public var identity: String? { (try? Digest.sha256.hash(configuration.key)).map { "HMAC " + $0.hex } }

    /// The signature's header, for ``Placement/header(_:)``; none when it is a parameter.
    public var addedFields: Set<String> {
        guard case .header(let name) = configuration.placement else { return [] }
        return [name.lowercased()]
    }

    /// The string the HMAC covers, for debugging a mismatch: every parameter, sorted.
    public func stringToSign(_ request: HTTPRequest) -> String {
        SigningText.normalized(SigningText.queryPairs(request.url) + SigningText.formPairs(request))
    }

    /// `request` with `pairs` (encoded) added to its form body or query.
    private func adding(_ pairs: [(name: String, value: String)], to request: HTTPRequest, inForm: Bool) throws(SluiceError) -> HTTPRequest {
        var request = request
        let encoded = SigningText.joined(pairs)
        if inForm {
            let existing = SigningText.body(request).map { String(decoding: $0, as: UTF8.self) } ?? ""
            request.body = .bytes(Data((existing.isEmpty ? encoded : existing + "&" + encoded).utf8))
            return request
        }
        try request.appendQuery(encoded: encoded)
        return request
    }
}
