import Foundation
import Sluice

/// RFC 8188's Encrypted Content-Encoding for HTTP, `Content-Encoding: aes128gcm`: a body as
/// AES-128-GCM records under a key derived by HKDF-SHA-256 from a shared secret and a fresh
/// random salt, with the secret's key id in the clear. A server decrypts it with any RFC 8188
/// implementation (`http-ece` in Python, `http_ece` in Node) and the same secret.
///
/// Request bodies in memory, in a file or in a stream are encrypted record by record as they are
/// sent (a file is never read whole); a response is decrypted record by record too, checking each
/// record's delimiter and that the last record is marked last, so a cut-short body is an error.
///
/// ```swift
/// import Sluice
/// import SluiceEncryption
///
/// let keys = StaticKeyProvider(keys: ["k1": sharedSecret], current: "k1")
/// builder.add(PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys)))
/// ```
public struct AES128GCMContentCoding: PayloadCipher {
    /// How messages are cut into records.
    public struct Configuration: Sendable {
        /// The record size, 18 bytes to 2^32 − 1 (RFC 8188 §2.1): each record carries up to this
        /// minus 17 bytes of content, and is held whole until it is sealed, so a stream body is
        /// held up to this size (http-ece's 4,294,967,295 makes one record of the whole body).
        /// Outside that range, encrypting is `.misconfigured`.
        public var recordSize: Int
        /// The largest record accepted when decrypting (16 MiB by default, at most 2^31 − 1): a
        /// peer may declare any record size up to 2^32 − 1, and a record is held whole until it
        /// can be opened, so a larger one is `.invalidResponse` as soon as that many bytes wait.
        public var maxRecordSize: Int = 16 << 20
        /// Accept a message of a header and no record as an empty body. Off by default: RFC 8188
        /// §2 ends every message with a record marked last (an empty body is one record holding
        /// only its delimiter, as Sluice writes it), so a header alone is what is left when
        /// something on the way removed every record, and decrypting it to nothing would hand the
        /// caller an empty 200. Turn it on for a peer that writes an empty body as a header alone
        /// (http-ece, the Python reference implementation, does).
        public var acceptsHeaderOnlyMessages = false

        /// Settings with each value given, or its default.
        public init(recordSize: Int = 4096) {
            self.recordSize = recordSize
        }

        /// Records of 4,096 bytes, as RFC 8188 suggests.
        public static let `default` = Configuration()
    }

    /// The content coding's name in `Content-Encoding`.
    public static let token = "aes128gcm"

    /// Where the secrets come from.
    public let keys: any KeyProvider
    /// How messages are cut into records.
    public let configuration: Configuration

    /// A coding with `keys` and `configuration`.
    public init(keys: any KeyProvider, configuration: Configuration = .default) {
        self.keys = keys
        self.configuration = configuration
    }

    public func encrypt(_ request: HTTPRequest) async throws -> HTTPRequest {
        var request = request
        if case .empty = request.body { return request }
        let (id, secret) = try keys.currentKey()
        let recordSize = configuration.recordSize
        let keyID = Data(id.utf8)
        // Checked now, so a bad setting fails before anything is sent.
        try AES128GCMRecords.check(recordSize: recordSize, keyID: keyID)
        @Sendable func encoder() throws(SluiceError) -> AES128GCMRecords.Encoder {
            try AES128GCMRecords.Encoder(secret: secret, keyID: keyID, recordSize: recordSize, salt: try Crypto.randomBytes(16))
        }
        switch request.body {
        case .empty:
            return request
        case .bytes(let data):
            let encoder = try encoder()
            var sealed = try encoder.add(data)
            sealed.append(try encoder.finish())
            request.body = .bytes(sealed)
        case .file(let url):
            guard let size = request.body.length else {
                throw SluiceError(.invalidBody, "cannot read the size of the body file \(url.path)")
            }
            request.body = .stream(
                .replayable(length: AES128GCMRecords.encryptedLength(plaintext: size, recordSize: recordSize, keyID: keyID)) {
                    RecordStream.stream(encoder: encoder, source: .file(url))
                })
        case .stream(let stream):
            let length = stream.length.flatMap { AES128GCMRecords.encryptedLength(plaintext: $0, recordSize: recordSize, keyID: keyID) }
            request.body = .stream(
                stream.isReplayable
                    ? .replayable(length: length) { RecordStream.stream(encoder: encoder, source: .stream(stream)) }
                    : .oneShot(length: length, RecordStream.stream(encoder: encoder, source: .stream(stream))))
        }
        try request.headers.set(name: "Content-Encoding", value: (Self.codings(in: request.headers) + [Self.token]).joined(separator: ", "))
        request.headers.remove(name: "Content-Length")
        return request
    }

    public func isEncrypted(_ response: HTTPResponse) -> Bool {
        Self.codings(in: response.headers).last?.lowercased() == Self.token
    }

    /// Whether `request`'s `Content-Encoding` already ends with `aes128gcm`.
    public func isSealed(_ request: HTTPRequest) -> Bool {
        Self.codings(in: request.headers).last?.lowercased() == Self.token
    }

    /// Throws `.invalidResponse` when `aes128gcm` is listed but not last (`aes128gcm, gzip`): the
    /// gzip would have to be undone first, and this chain undoes gzip outside encryption.
    public func checkCodingOrder(of response: HTTPResponse) throws {
        let codings = response.headers.contentCodings
        guard codings.contains(where: { $0.lowercased() == Self.token }), codings.last?.lowercased() != Self.token else { return }
        throw SluiceError(
            .invalidResponse,
            "its Content-Encoding \(String(reflecting: codings.joined(separator: ", ").escapingControlCharacters())) lists aes128gcm before "
                + "\(codings.last ?? ""): codings are undone last first, and this chain decrypts before it undoes \(codings.last ?? ""), so the body cannot be "
                + "read; refused", response: response)
    }

    public func decrypt(_ response: HTTPResponse) async throws -> HTTPResponse {
        var response = response
        guard response.bodyFile == nil else {
            throw SluiceError(.misconfigured, "an aes128gcm body saved to a file is not decrypted: read it in memory or as a stream")
        }
        let remaining = Self.codings(in: response.headers).dropLast()
        if remaining.isEmpty {
            response.headers.remove(name: "Content-Encoding")
        } else {
            try response.headers.set(name: "Content-Encoding", value: remaining.joined(separator: ", "))
        }
        if let stream = response.bodyStream {
            let decoder = Locked(
                AES128GCMRecords.Decoder(
                    keys: keys, maxRecordSize: configuration.maxRecordSize, acceptsHeaderOnly: configuration.acceptsHeaderOnlyMessages))
            response.bodyStream = stream.map(
                { chunk in try decoder.withLock { try $0.add(chunk) } },
                end: { error in error == nil ? try decoder.withLock { try $0.finish() } : nil })
            response.headers.remove(name: "Content-Length")
            return response
        }
        let decoder = AES128GCMRecords.Decoder(
            keys: keys, maxRecordSize: configuration.maxRecordSize, acceptsHeaderOnly: configuration.acceptsHeaderOnlyMessages)
        var plain = try decoder.add(response.body)
        plain.append(try decoder.finish())
        response.body = plain
        try response.headers.set(name: "Content-Length", value: String(plain.count))
        return response
    }

    /// The codings `headers` list in `Content-Encoding`, in order.
    static func codings(in headers: HTTPFields) -> [String] {
        headers.values(for: "Content-Encoding").flatMap { $0.split(separator: ",").map { $0.trimmingOptionalWhitespace() } }
            .filter { !$0.isEmpty }
    }
}
