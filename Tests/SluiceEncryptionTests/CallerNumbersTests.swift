import Foundation
import Sluice
import SluiceEncryption
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceEncryption's public numbers driven with every hostile value of ``CallerNumbers``: a
/// record size outside 18...2^32 − 1 is `.misconfigured`, limits of 0 or less refuse every body,
/// and nothing traps.
@Suite("Caller numbers: SluiceEncryption")
struct EncryptionCallerNumbersTests {
    static let keys = StaticKeyProvider(keys: ["k": Data(repeating: 9, count: 16)], current: "k")
    static let url = URL(string: "https://api.example.com/x")!

    @Test(
        .covers("AES128GCMContentCoding.Configuration.recordSize"),
        arguments: CallerNumbers.ints + [17, 18, Int(Int32.max), Int(Int32.max) + 1, Int(UInt32.max), Int(UInt32.max) + 1])
    func recordSizes(_ size: Int) async throws {
        let coding = AES128GCMContentCoding(keys: Self.keys, configuration: .init(recordSize: size))
        // A stream claiming the longest length: its encrypted length does not fit, so it goes chunked.
        let claimed = HTTPBody.stream(.replayable(length: Int64.max) { AsyncThrowingStream { $0.finish() } })
        for body in [HTTPBody.bytes(Data("secret".utf8)), claimed] {
            let outcome = await Result { try await coding.encrypt(HTTPRequest(method: .post, url: Self.url, body: body)) }
            if (18...Int(UInt32.max)).contains(size) {
                let sealed = try outcome.get()
                if case .stream(let stream) = sealed.body { #expect(stream.length == nil) }
            } else {
                #expect { try outcome.get() } throws: {
                    ($0 as? SluiceError)?.code == .misconfigured && "\($0)".contains("record size is 18 to 2^32 − 1 bytes (RFC 8188 §2.1), not \(size)")
                }
            }
        }
    }

    /// The largest record accepted when decrypting is held to 18...2^31 − 1.
    @Test(.covers("AES128GCMContentCoding.Configuration.maxRecordSize"), arguments: CallerNumbers.ints)
    func maxRecordSizes(_ size: Int) async throws {
        var configuration = AES128GCMContentCoding.Configuration()
        configuration.maxRecordSize = size
        let coding = AES128GCMContentCoding(keys: Self.keys, configuration: configuration)
        let sealed = try await AES128GCMContentCoding(keys: Self.keys).encrypt(HTTPRequest(method: .post, url: Self.url, body: .bytes(Data("secret".utf8))))
        let response = HTTPResponse(status: .ok, headers: ["Content-Encoding": "aes128gcm"], body: try await sealed.body.collect())
        let opened = await Result { try await coding.decrypt(response) }
        // The sealed message has one record of 4,096 declared bytes: a smaller limit refuses it.
        if size >= 4096 {
            #expect(try outcome(opened) == "secret")
        } else {
            #expect(throws: SluiceError.self) { try opened.get() }
        }
    }

    @Test(.covers("JWECompactCipher.init(keys:encryption:maximumBodySize:) maximumBodySize"), arguments: CallerNumbers.ints)
    func jweBodySizes(_ size: Int) async throws {
        let keys = StaticKeyProvider(keys: ["k": Data(repeating: 9, count: 32)], current: "k")
        let cipher = JWECompactCipher(keys: keys, maximumBodySize: size)
        let outcome = await Result { try await cipher.encrypt(HTTPRequest(method: .post, url: Self.url, body: .bytes(Data("secret".utf8)))) }
        if size >= 6 {
            #expect(try outcome.get().body.length.map { $0 > 6 } == true)
        } else {
            #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge }
        }
    }

    func outcome(_ result: Result<HTTPResponse, any Error>) throws -> String {
        String(decoding: try result.get().body, as: UTF8.self)
    }
}
