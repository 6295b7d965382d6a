import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceEncryption

/// Checks that `body` throws exactly this SluiceError: its code and its whole message.
func expectError(
    _ code: SluiceError.Code, _ message: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("no error; expected \(code): \(message)", sourceLocation: sourceLocation)
    } catch let error as SluiceError {
        #expect(error.code == code && error.message == message, "\(error.code): \(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
    }
}

/// The bytes of base64url text (RFC 8188's examples are written so).
func b64url(_ text: String) -> Data { Base64URL.decode(text)! }

@Suite("aes128gcm (RFC 8188)")
struct AES128GCMContentCodingTests {
    /// RFC 8188 §3.1: one record of 4096, no key id.
    static let example1 = (
        ikm: b64url("yqdlZ-tYemfogSmv7Ws5PQ"), salt: b64url("I1BsxtFttlv3u_Oo94xnmw"),
        message: b64url("I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg")
    )
    /// RFC 8188 §3.2: records of 25 bytes, key id "a1".
    static let example2 = (
        ikm: b64url("BO3ZVPxUlnLORbVGMpbT1Q"),
        message: b64url("uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA")
    )

    static func decrypt(_ message: Data, keys: [String: Data]) throws(SluiceError) -> Data {
        let decoder = AES128GCMRecords.Decoder(keys: StaticKeyProvider(keys: keys, current: keys.keys.first ?? ""))
        var plain = try decoder.add(message)
        plain.append(try decoder.finish())
        return plain
    }

    static func encrypt(
        _ plain: Data, secret: Data, keyID: String, recordSize: Int, salt: Data, padding: @escaping (UInt64) -> Int = { _ in 0 }
    ) throws(SluiceError) -> Data {
        let encoder = try AES128GCMRecords.Encoder(secret: secret, keyID: Data(keyID.utf8), recordSize: recordSize, salt: salt, padding: padding)
        var message = try encoder.add(plain)
        message.append(try encoder.finish())
        return message
    }

    @Test func theRFCExamplesDecryptToTheirPlaintext() throws {
        #expect(try Self.decrypt(Self.example1.message, keys: ["": Self.example1.ikm]) == Data("I am the walrus".utf8))
        #expect(try Self.decrypt(Self.example2.message, keys: ["a1": Self.example2.ikm]) == Data("I am the walrus".utf8))
    }

    @Test func encryptingWithTheRFCsKeySaltAndRecordSizeGivesTheirBytes() throws {
        let walrus = Data("I am the walrus".utf8)
        #expect(try Self.encrypt(walrus, secret: Self.example1.ikm, keyID: "", recordSize: 4096, salt: Self.example1.salt) == Self.example1.message)
        // §3.2's first record carries one byte of padding after its delimiter.
        let salt2 = Data(Self.example2.message.prefix(16))
        let padded = try Self.encrypt(walrus, secret: Self.example2.ikm, keyID: "a1", recordSize: 25, salt: salt2, padding: { $0 == 0 ? 1 : 0 })
        #expect(padded == Self.example2.message)
    }

    /// Any split of the message into chunks decrypts the same: a streamed answer arrives in pieces.
    @Test func chunksOfAnySizeDecryptTheSame() throws {
        let message = Self.example2.message
        for size in [1, 7, 25, 26, 71] {
            let decoder = AES128GCMRecords.Decoder(keys: StaticKeyProvider(keys: ["a1": Self.example2.ikm], current: "a1"))
            var plain = Data()
            var offset = 0
            while offset < message.count {
                plain.append(try decoder.add(message[offset..<min(offset + size, message.count)]))
                offset += size
            }
            plain.append(try decoder.finish())
            #expect(plain == Data("I am the walrus".utf8), "chunks of \(size)")
        }
    }

    @Test func lengthsAroundTheRecordSizeRoundTripAndMatchTheAnnouncedLength() throws {
        let secret = Data(repeating: 9, count: 16)
        for recordSize in [18, 25, 4096] {
            for length in [0, 1, recordSize - 18, recordSize - 17, recordSize - 16, 3 * (recordSize - 17), 10_000] {
                let plain = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) })
                let message = try Self.encrypt(plain, secret: secret, keyID: "k", recordSize: recordSize, salt: Data(repeating: 1, count: 16))
                #expect(Int64(message.count) == AES128GCMRecords.encryptedLength(plaintext: Int64(length), recordSize: recordSize, keyID: Data("k".utf8)))
                #expect(try Self.decrypt(message, keys: ["k": secret]) == plain, "\(length) bytes in records of \(recordSize)")
            }
        }
    }

    // MARK: Bad input, each with its exact error

    func expectInvalid(_ message: Data, keys: [String: Data] = ["a1": AES128GCMContentCodingTests.example2.ikm], _ expected: String) {
        expectError(.invalidResponse, "aes128gcm body: \(expected)") { _ = try Self.decrypt(message, keys: keys) }
    }

    /// Issue 27, items 5 and 6: a peer's record size of 2^32 − 1 is read with its arithmetic
    /// checked, and a record is never held past the limit (before, a 2.2 GB record reached
    /// OpenSSL's `int` length and crashed the process).
    @Test func aRecordLargerThanTheLimitIsRefusedAsItsBytesArrive() {
        let keys = StaticKeyProvider(keys: ["k": Data(repeating: 9, count: 16)], current: "k")
        let decoder = AES128GCMRecords.Decoder(keys: keys, maxRecordSize: 1 << 20)
        var header = Data(repeating: 1, count: 16)
        header.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 1])
        header.append(Data("k".utf8))
        expectError(
            .invalidResponse,
            "aes128gcm body: its record size is 4294967295 bytes, and 1114112 bytes of one record wait: more than the limit of 1048576 "
                + "(AES128GCMContentCoding.Configuration.maxRecordSize)"
        ) {
            _ = try decoder.add(header)
            for _ in 0..<17 { _ = try decoder.add(Data(repeating: 0xAB, count: 64 << 10)) }
        }
    }

    @Test func aWrongKeyOrAnUnknownKeyIDIsRefused() {
        expectInvalid(
            Self.example2.message, keys: ["a1": Data(repeating: 0, count: 16)],
            "record 1 does not authenticate: the key is wrong, or the bytes were changed or cut short")
        expectInvalid(Self.example2.message, keys: ["b2": Self.example2.ikm], #"no key is known for its key id "a1""#)
    }

    @Test func aFlippedBitInEachRecordIsRefused() {
        // Records of 25 bytes after the 23-byte header: the first record, then the second.
        for (offset, record) in [(23, 1), (23 + 24, 1), (23 + 25, 2), (Self.example2.message.count - 1, 2)] {
            var message = Self.example2.message
            message[offset] ^= 0x01
            expectInvalid(message, "record \(record) does not authenticate: the key is wrong, or the bytes were changed or cut short")
        }
    }

    @Test func aCutShortBodyIsAnErrorNotAShortBody() {
        let message = Self.example2.message
        // Without its last record: the first is not marked last.
        expectInvalid(message.prefix(23 + 25), "the body ends after record 1, which is not marked last (it was cut short)")
        // A last record cut inside.
        expectInvalid(message.prefix(message.count - 5), "record 2 does not authenticate: the key is wrong, or the bytes were changed or cut short")
        // Part of the header.
        expectInvalid(message.prefix(10), "the body ends after 10 bytes, inside its header")
    }

    /// Issue 27, item 3: an answer whose records were all removed (a header alone) is refused by
    /// default, where before it decrypted to an empty 200; a peer that writes an empty body so
    /// (http-ece) is accepted when the configuration says so. An empty body as Sluice writes it
    /// (one record holding only its delimiter) is empty either way.
    @Test func aHeaderAloneIsRefusedUnlessTheConfigurationAcceptsIt() async throws {
        let headerOnly = Self.example2.message.prefix(23)
        expectInvalid(
            headerOnly,
            "the body ends after its header, with no record: every message ends with a record marked last, so its records were removed on the "
                + "way or its writer leaves them out of an empty body; refused (AES128GCMContentCoding.Configuration.acceptsHeaderOnlyMessages "
                + "accepts it as empty)")
        let keys = StaticKeyProvider(keys: ["a1": Self.example2.ikm], current: "a1")
        let answer = HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("Content-Encoding", "aes128gcm")]), body: Data(headerOnly))
        await #expect(throws: SluiceError.self) { _ = try await AES128GCMContentCoding(keys: keys).decrypt(answer) }
        var lenient = AES128GCMContentCoding.Configuration()
        lenient.acceptsHeaderOnlyMessages = true
        #expect(try await AES128GCMContentCoding(keys: keys, configuration: lenient).decrypt(answer).body == Data())

        let empty = try Self.encrypt(Data(), secret: Self.example2.ikm, keyID: "a1", recordSize: 4096, salt: Data(repeating: 3, count: 16))
        #expect(empty.count == 23 + 17)  // the header and one record: the tag and the delimiter
        #expect(try Self.decrypt(empty, keys: ["a1": Self.example2.ikm]) == Data())
    }

    @Test func aRecordSizeBelow18IsRefused() {
        var message = Self.example2.message
        message[19] = 17
        expectInvalid(message, "its record size is 17, below the minimum of 18")
        expectError(.misconfigured, "an aes128gcm record size is 18 to 2^32 − 1 bytes (RFC 8188 §2.1), not 17") {
            _ = try Self.encrypt(Data(), secret: Data(repeating: 1, count: 16), keyID: "", recordSize: 17, salt: Data(repeating: 0, count: 16))
        }
    }

    /// Issue 53, item 10, a regression: RFC 8188 §2.1 allows a record size up to 2^32 − 1, and
    /// http-ece uses 4,294,967,295 (one record of the whole body); sending refused it past 2^31 − 1.
    @Test(arguments: [Int(Int32.max) + 1, Int(UInt32.max)])
    func aRecordSizeUpTo2To32Minus1IsSentAndReadBack(recordSize: Int) throws {
        let secret = Data(repeating: 6, count: 16)
        let content = Data("one record of the whole body".utf8)
        let sealed = try Self.encrypt(content, secret: secret, keyID: "k", recordSize: recordSize, salt: Data(repeating: 2, count: 16))
        #expect(Array(sealed[16..<20]) == withUnsafeBytes(of: UInt32(recordSize).bigEndian) { Array($0) }, "rs in the header")
        #expect(try Self.decrypt(sealed, keys: ["k": secret]) == content)
    }

    @Test func aRecordAfterTheLastIsRefused() throws {
        let secret = Data(repeating: 4, count: 16)
        let one = try Self.encrypt(Data("a".utf8), secret: secret, keyID: "", recordSize: 18, salt: Data(repeating: 1, count: 16))
        // Two messages' records under one header: the second record follows one marked last.
        let twoLasts = one + one.suffix(18)
        expectError(.invalidResponse, "aes128gcm body: record 1 is marked last, but more records follow") {
            _ = try Self.decrypt(twoLasts, keys: ["": secret])
        }
    }

    /// Keys rotate: new messages use the current id, answers under an older id still decrypt,
    /// and one under an id no longer known is refused by name.
    @Test func keysRotateByID() async throws {
        let old = Data(repeating: 0x11, count: 16), new = Data(repeating: 0x22, count: 16)
        let coding = AES128GCMContentCoding(keys: StaticKeyProvider(keys: ["2026-11": old, "2026-12": new], current: "2026-12"))
        let sent = try await coding.encrypt(HTTPRequest(method: .post, url: URL(string: "https://x.example/")!, body: .bytes(Data("hi".utf8))))
        let message = try await sent.body.collect()
        #expect(message[20] == 7 && message[21..<28] == Data("2026-12".utf8))  // the key id in the header
        #expect(try Self.decrypt(message, keys: ["2026-12": new]) == Data("hi".utf8))
        let underOld = try Self.encrypt(Data("still".utf8), secret: old, keyID: "2026-11", recordSize: 4096, salt: Data(repeating: 5, count: 16))
        let response = HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("Content-Encoding", "aes128gcm")]), body: underOld)
        #expect(try await coding.decrypt(response).body == Data("still".utf8))
        expectInvalid(underOld, keys: ["2026-12": new], #"no key is known for its key id "2026-11""#)
    }

    // MARK: Interop with http-ece, both ways

    @Test(arguments: [0, 1, 4096 - 17, 1 << 20])
    func httpECEReadsWhatSluiceWritesAndTheOtherWayRound(length: Int) async throws {
        let secret = Data((0..<16).map { UInt8($0 * 11 & 0xFF) })
        let plain = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) })
        let keys = StaticKeyProvider(keys: ["key-2026": secret], current: "key-2026")
        // http-ece writes an empty body as a header alone.
        var configuration = AES128GCMContentCoding.Configuration()
        configuration.acceptsHeaderOnlyMessages = true
        let coding = AES128GCMContentCoding(keys: keys, configuration: configuration)
        let request = try await coding.encrypt(HTTPRequest(method: .post, url: URL(string: "https://x.example/")!, body: .bytes(plain)))
        let sealed = try await request.body.collect()
        let keyText = Base64URL.encode(secret)
        #expect(try await ReferenceImplementations.run("ece-decrypt", [keyText], input: sealed) == plain)

        let theirs = try await ReferenceImplementations.run("ece-encrypt", [keyText, "key-2026", "4096"], input: plain)
        var response = HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("Content-Encoding", "aes128gcm")]), body: theirs)
        response = try await coding.decrypt(response)
        #expect(response.body == plain)
        #expect(response.headers["Content-Encoding"] == nil && response.headers["Content-Length"] == String(length))
    }

    /// The largest record sizes, both ways: http-ece reads what Sluice writes with rs 2^32 − 1
    /// (RFC 8188's largest), and Sluice reads what http-ece writes with its own largest, 2^31 − 1
    /// (http-ece 1.2 refuses to write more: "Too much content").
    @Test func httpECEAndSluiceAgreeOnTheLargestRecordSizes() async throws {
        let secret = Data(repeating: 0x42, count: 16)
        let plain = Data("one record, http-ece's way".utf8)
        let keys = StaticKeyProvider(keys: ["k": secret], current: "k")
        let coding = AES128GCMContentCoding(keys: keys, configuration: .init(recordSize: 4_294_967_295))
        let request = try await coding.encrypt(HTTPRequest(method: .post, url: URL(string: "https://x.example/")!, body: .bytes(plain)))
        let keyText = Base64URL.encode(secret)
        #expect(try await ReferenceImplementations.run("ece-decrypt", [keyText], input: try await request.body.collect()) == plain)
        let theirs = try await ReferenceImplementations.run("ece-encrypt", [keyText, "k", "2147483647"], input: plain)
        let response = HTTPResponse(status: .ok, headers: try HTTPFields(validating: [("Content-Encoding", "aes128gcm")]), body: theirs)
        #expect(try await coding.decrypt(response).body == plain)
    }
}
