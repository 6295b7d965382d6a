import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceEncryption

@Suite("JWE compact with dir and AES-GCM")
struct JWECompactCipherTests {
    static let key256 = Data((0..<32).map { UInt8($0 &* 7 &+ 1) })
    static let key128 = Data((0..<16).map { UInt8($0 &* 5 &+ 3) })
    let keys = StaticKeyProvider(keys: ["k256": JWECompactCipherTests.key256, "k128": JWECompactCipherTests.key128], current: "k256")

    func request(_ body: Data) -> HTTPRequest {
        var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/x")!, body: .bytes(body))
        try! request.headers.set(name: "Content-Type", value: "application/json")
        return request
    }

    static func keyText(_ key: Data) -> String { Base64URL.encode(key) }

    @Test(arguments: [0, 1, 4096 - 17, 1 << 20])
    func jwcryptoReadsWhatSluiceWritesAndTheOtherWayRound(length: Int) async throws {
        let plain = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 2) })
        for (encryption, id, key) in [(JWECompactCipher.ContentEncryption.a256gcm, "k256", Self.key256), (.a128gcm, "k128", Self.key128)] {
            let cipher = JWECompactCipher(keys: StaticKeyProvider(keys: [id: key], current: id), encryption: encryption)
            let sent = try await cipher.encrypt(request(plain))
            #expect(sent.headers["Content-Type"] == "application/jose")
            let compact = try await sent.body.collect()
            let theirs = try await ReferenceImplementations.run("jwe-encrypt", [Self.keyText(key), id, encryption.rawValue], input: plain)
            if length > 0 {
                let read = try await ReferenceImplementations.run("jwe-decrypt", [Self.keyText(key)], input: compact)
                let newline = try #require(read.firstIndex(of: 0x0A))
                let header = try #require(try JSONSerialization.jsonObject(with: read[..<newline]) as? [String: String])
                #expect(header == ["cty": "application/json", "kid": id, "enc": encryption.rawValue])
                #expect(read[(newline + 1)...] == plain)
            } else {
                // jwcrypto 1.5 cannot read an empty payload, not even from a token it made itself
                // ("No recipient matched the provided key"); Sluice reads both.
                await #expect(throws: ReferenceImplementations.ReferenceFailure.self) {
                    _ = try await ReferenceImplementations.run("jwe-decrypt", [Self.keyText(key)], input: theirs)
                }
                #expect(try cipher.decrypt(compact: compact).0 == plain)
            }

            var response = HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("Content-Type", "application/jose")]), body: theirs)
            #expect(cipher.isEncrypted(response))
            response = try await JWECompactCipher(keys: keys).decrypt(response)
            #expect(response.body == plain)
            #expect(response.headers["Content-Type"] == "application/json")
        }
    }

    // MARK: Bad input, each with its exact error

    func compact(_ plain: Data = Data("{}".utf8)) async throws -> String {
        String(decoding: try await JWECompactCipher(keys: keys).encrypt(request(plain)).body.collect(), as: UTF8.self)
    }

    func expectInvalid(_ compact: String, _ reason: String, keys: StaticKeyProvider? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let cipher = JWECompactCipher(keys: keys ?? self.keys)
        expectError(.invalidResponse, "JWE body: \(reason)", sourceLocation: sourceLocation) { _ = try cipher.decrypt(compact: Data(compact.utf8)) }
    }

    func withHeader(_ header: [String: String], from compact: String) throws -> String {
        var parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        parts[0] = Base64URL.encode(try encoder.encode(header))
        return parts.joined(separator: ".")
    }

    @Test func anotherAlgOrEncIsRefusedByName() async throws {
        let token = try await compact()
        expectInvalid(try withHeader(["alg": "RSA-OAEP", "enc": "A256GCM", "kid": "k256"], from: token), #"its alg "RSA-OAEP" is not supported (only dir)"#)
        expectInvalid(
            try withHeader(["alg": "dir", "enc": "A128CBC-HS256", "kid": "k256"], from: token),
            #"its enc "A128CBC-HS256" is not supported (A256GCM or A128GCM)"#)
    }

    @Test func wrongKeysAndChangedBytesAreRefused() async throws {
        let token = try await compact()
        expectInvalid(token, #"no key is known for its kid "k256""#, keys: StaticKeyProvider(keys: ["other": Self.key256], current: "other"))
        expectInvalid(
            token, "it does not authenticate: the key is wrong or the bytes were changed",
            keys: StaticKeyProvider(keys: ["k256": Data(repeating: 9, count: 32)], current: "k256"))
        // A flipped bit in the ciphertext, the tag and the header (the header is authenticated too).
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for index in [3, 4] {
            var bytes = try #require(Base64URL.decode(parts[index]))
            bytes[bytes.startIndex] ^= 0x01
            var changed = parts
            changed[index] = Base64URL.encode(bytes)
            expectInvalid(changed.joined(separator: "."), "it does not authenticate: the key is wrong or the bytes were changed")
        }
        expectInvalid(
            try withHeader(["alg": "dir", "enc": "A256GCM", "kid": "k256", "cty": "text/plain"], from: token),
            "it does not authenticate: the key is wrong or the bytes were changed")
        parts[1] = "AAAA"
        expectInvalid(parts.joined(separator: "."), "alg dir has no encrypted key, but this one has one")
    }

    @Test func malformedTokensSayWhatIsWrong() async throws {
        let token = try await compact()
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        expectInvalid(parts.prefix(3).joined(separator: "."), "it has 3 parts, not the 5 of the compact serialization")
        expectInvalid(["!!", "", parts[2], parts[3], parts[4]].joined(separator: "."), "its protected header is not base64url-encoded JSON")
        expectInvalid([parts[0], "", "AAAA", parts[3], parts[4]].joined(separator: "."), "its iv is not 12 base64url-encoded bytes")
        expectInvalid([parts[0], "", parts[2], parts[3], "AAAA"].joined(separator: "."), "its tag is not 16 base64url-encoded bytes")
    }

    @Test func aKeyOfTheWrongLengthIsAConfigurationError() async throws {
        let short = JWECompactCipher(keys: StaticKeyProvider(keys: ["k": Self.key128], current: "k"), encryption: .a256gcm)
        do {
            _ = try await short.encrypt(request(Data("{}".utf8)))
            Issue.record("a 16-byte key encrypted with A256GCM")
        } catch let error as SluiceError {
            #expect(error.code == .misconfigured && error.message == #"the key "k" has 16 bytes; A256GCM needs 32"#)
        }
    }
}
