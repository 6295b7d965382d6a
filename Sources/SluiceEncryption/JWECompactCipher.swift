import Foundation
import Sluice

/// JWE in its compact serialization (RFC 7516) with direct encryption (`alg: dir`) under a
/// shared key and AES-GCM (`enc: A256GCM`, or `A128GCM`): the body goes out as
/// `Content-Type: application/jose`, with the key's id in `kid` and the original media type in
/// `cty`; an `application/jose` answer is decrypted and gets its `cty` back as its
/// `Content-Type`. Any JOSE library (`jwcrypto` in Python, `jose` in Node) reads it.
///
/// A compact JWE is one string, so the body is encrypted whole, in memory.
///
/// ```swift
/// import Sluice
/// import SluiceEncryption
///
/// let keys = StaticKeyProvider(keys: ["k1": thirtyTwoByteKey], current: "k1")
/// builder.add(PayloadEncryptionMiddleware(cipher: JWECompactCipher(keys: keys)))
/// ```
public struct JWECompactCipher: PayloadCipher {
    /// The content encryption.
    public enum ContentEncryption: String, Sendable, CaseIterable {
        /// AES-256-GCM: 32-byte keys.
        case a256gcm = "A256GCM"
        /// AES-128-GCM: 16-byte keys.
        case a128gcm = "A128GCM"

        /// The key length it needs, in bytes.
        public var keyLength: Int { self == .a256gcm ? 32 : 16 }
    }

    /// The media type of a compact JWE.
    public static let mediaType = "application/jose"

    /// Where the keys come from.
    public let keys: any KeyProvider
    /// The content encryption of what is sent (both are read).
    public let encryption: ContentEncryption
    /// The largest body it encrypts (a compact JWE is built in memory).
    public let maximumBodySize: Int

    /// A cipher with `keys`, sending `encryption`.
    public init(keys: any KeyProvider, encryption: ContentEncryption = .a256gcm, maximumBodySize: Int = 64 << 20) {
        self.keys = keys
        self.encryption = encryption
        self.maximumBodySize = maximumBodySize
    }

    public func encrypt(_ request: HTTPRequest) async throws -> HTTPRequest {
        var request = request
        if case .empty = request.body { return request }
        // A JWE has no place for a content coding: the message's Content-Encoding would describe
        // the JWE text, which it does not.
        let codings = request.headers.contentCodings
        guard codings.isEmpty else {
            throw SluiceError(
                .misconfigured,
                "\(request) has Content-Encoding \(String(reflecting: codings.joined(separator: ", "))), and a JWE body cannot say so: the label "
                    + "would describe the JWE text; send the body uncompressed (request.compressesBody = .never) or use AES128GCMContentCoding, whose "
                    + "coding list keeps it")
        }
        let (id, key) = try keys.currentKey()
        guard key.count == encryption.keyLength else {
            throw SluiceError(.misconfigured, "the key \(String(reflecting: id)) has \(key.count) bytes; \(encryption.rawValue) needs \(encryption.keyLength)")
        }
        let plaintext = try await request.body.collect(limit: maximumBodySize)
        var header: [String: String] = ["alg": "dir", "enc": encryption.rawValue, "kid": id]
        if let type = request.headers["Content-Type"] { header["cty"] = type }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let protected = Base64URL.encode(try encoder.encode(header))
        let iv = try Crypto.randomBytes(12)
        var sealed = Data()
        let gcm = try Crypto.GCM(key: key, encrypting: true)
        let failure = plaintext.withUnsafeBytes { bytes -> SluiceError? in
            do throws(SluiceError) {
                try gcm.seal(bytes, nonce: [UInt8](iv), aad: Data(protected.utf8), into: &sealed)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        let ciphertext = sealed.prefix(sealed.count - Crypto.tagLength), tag = sealed.suffix(Crypto.tagLength)
        let compact = [protected, "", Base64URL.encode(iv), Base64URL.encode(ciphertext), Base64URL.encode(tag)].joined(separator: ".")
        request.body = .bytes(Data(compact.utf8))
        try request.headers.set(name: "Content-Type", value: Self.mediaType)
        request.headers.remove(name: "Content-Length")
        return request
    }

    public func isEncrypted(_ response: HTTPResponse) -> Bool {
        Self.isJOSE(response.headers)
    }

    /// Whether `request`'s `Content-Type` is already `application/jose`.
    public func isSealed(_ request: HTTPRequest) -> Bool {
        Self.isJOSE(request.headers)
    }

    static func isJOSE(_ headers: HTTPFields) -> Bool {
        headers["Content-Type"]?.split(separator: ";").first?.trimmingOptionalWhitespace().lowercased() == Self.mediaType
    }

    /// Throws `.invalidResponse` for a JWE body that also lists a content coding: the coding would
    /// have to be undone before decrypting, and this chain undoes it outside encryption.
    public func checkCodingOrder(of response: HTTPResponse) throws {
        let codings = response.headers.contentCodings
        guard isEncrypted(response), !codings.isEmpty else { return }
        throw SluiceError(
            .invalidResponse,
            "its JWE body also has Content-Encoding \(String(reflecting: codings.joined(separator: ", ").escapingControlCharacters())), which would "
                + "have to be undone before decrypting, and this chain decrypts first; refused", response: response)
    }

    public func decrypt(_ response: HTTPResponse) async throws -> HTTPResponse {
        var response = response
        guard response.bodyFile == nil, response.bodyStream == nil else {
            throw SluiceError(.misconfigured, "a JWE body is decrypted in memory, not from a file or a stream")
        }
        let (plaintext, contentType) = try decrypt(compact: response.body)
        response.body = plaintext
        if let contentType {
            try response.headers.set(name: "Content-Type", value: contentType)
        } else {
            response.headers.remove(name: "Content-Type")
        }
        try response.headers.set(name: "Content-Length", value: String(plaintext.count))
        return response
    }

    /// The plaintext of a compact JWE, and its `cty`.
    package func decrypt(compact: Data) throws(SluiceError) -> (Data, String?) {
        let text = String(decoding: compact, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5 else { throw Self.invalid("it has \(parts.count) parts, not the 5 of the compact serialization") }
        guard let headerBytes = Base64URL.decode(parts[0]),
            let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any]
        else { throw Self.invalid("its protected header is not base64url-encoded JSON") }
        let alg = header["alg"] as? String ?? ""
        guard alg == "dir" else { throw Self.invalid("its alg \(String(reflecting: alg)) is not supported (only dir)") }
        let encName = header["enc"] as? String ?? ""
        guard let enc = ContentEncryption(rawValue: encName) else {
            throw Self.invalid("its enc \(String(reflecting: encName)) is not supported (A256GCM or A128GCM)")
        }
        guard header["zip"] == nil else { throw Self.invalid("compressed content (zip) is not supported") }
        guard parts[1].isEmpty else { throw Self.invalid("alg dir has no encrypted key, but this one has one") }
        let kid = header["kid"] as? String ?? ""
        guard let key = keys.key(id: kid) else { throw Self.invalid("no key is known for its kid \(String(reflecting: kid))") }
        guard key.count == enc.keyLength else {
            throw SluiceError(.misconfigured, "the key \(String(reflecting: kid)) has \(key.count) bytes; \(enc.rawValue) needs \(enc.keyLength)")
        }
        guard let iv = Base64URL.decode(parts[2]), iv.count == 12 else { throw Self.invalid("its iv is not 12 base64url-encoded bytes") }
        guard let ciphertext = Base64URL.decode(parts[3]) else { throw Self.invalid("its ciphertext is not base64url") }
        guard let tag = Base64URL.decode(parts[4]), tag.count == Crypto.tagLength else {
            throw Self.invalid("its tag is not 16 base64url-encoded bytes")
        }
        let gcm = try Crypto.GCM(key: key, encrypting: false)
        guard let plaintext = (ciphertext + tag).withUnsafeBytes({ gcm.open($0, nonce: [UInt8](iv), aad: Data(parts[0].utf8)) }) else {
            throw Self.invalid("it does not authenticate: the key is wrong or the bytes were changed")
        }
        return (plaintext, header["cty"] as? String)
    }

    static func invalid(_ reason: String) -> SluiceError {
        SluiceError(.invalidResponse, "JWE body: \(reason)")
    }
}
