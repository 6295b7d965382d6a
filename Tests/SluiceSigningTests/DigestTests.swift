import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceSigning

func request(_ method: HTTPMethod = .get, _ url: String, _ fields: [(String, String)] = [], body: String? = nil) -> HTTPRequest {
    var request = HTTPRequest(method: method, url: URL(string: url)!)
    for (name, value) in fields { try! request.headers.append(name: name, value: value) }
    if let body { request.body = .bytes(Data(body.utf8)) }
    return request
}

@Suite("Digest")
struct DigestTests {
    // FIPS 180-4 and RFC 1321 examples: the digests of "abc".
    @Test func digestsOfABC() throws {
        let abc = Data("abc".utf8)
        #expect(try Digest.md5.hash(abc).hex == "900150983cd24fb0d6963f7d28e17f72")
        #expect(try Digest.sha1.hash(abc).hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(try Digest.sha256.hash(abc).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            try Digest.sha512.hash(abc).hex
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    // RFC 4231 §4.2–4.8, HMAC-SHA-256, every test case (case 5 is truncated to 128 bits).
    @Test(arguments: [
        (String(repeating: "0b", count: 20), Data("Hi There".utf8), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", Data("what do ya want for nothing?".utf8), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (String(repeating: "aa", count: 20), Data(repeating: 0xDD, count: 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (
            "0102030405060708090a0b0c0d0e0f10111213141516171819", Data(repeating: 0xCD, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (String(repeating: "0c", count: 20), Data("Test With Truncation".utf8), "a3b6167473100ee06e0c796c2955552b"),
        (
            String(repeating: "aa", count: 131), Data("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            String(repeating: "aa", count: 131),
            Data(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func rfc4231(key: String, data: Data, expected: String) throws {
        #expect(try Digest.sha256.hmac(key: Data(hex: key), data).hex.hasPrefix(expected))
    }

    /// A context given back after a message is reset to the bare key: the messages after it,
    /// shorter, longer or empty, get the MAC of their own bytes alone (expected values from
    /// Python's hmac module).
    @Test func aReusedContextStartsEachMessageAfresh() throws {
        let key = Data("Jefe".utf8)
        let first = Data("what do ya want for nothing?".utf8)
        let long = Data("a second message, longer than one block of sixty-four bytes of SHA-256 input".utf8)
        for _ in 0..<3 {
            #expect(try Digest.sha256.hmac(key: key, first).hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
            #expect(try Digest.sha256.hmac(key: key, long).hex == "60d4b3f597d19bb0193a89d8fba1fd47f3573f290e441c531dd373dbc5dc4114")
            #expect(try Digest.sha256.hmac(key: key, Data()).hex == "923598ca6d64af2a5dba79dcd021a8a0fe5c5f557519adaaf0ad532d4506dd30")
        }
    }

    /// The keyed contexts are cached per digest and key and copied per message: every key and
    /// every digest still gets its own answer, past the cache's 16 keys, from many tasks at once.
    @Test func cachedKeysGiveEachKeyAndDigestItsOwnMac() async throws {
        let message = Data("what do ya want for nothing?".utf8)
        // RFC 2202 and RFC 4231 test case 2 ("Jefe"), and an empty key (a common pitfall).
        #expect(try Digest.sha1.hmac(key: Data("Jefe".utf8), message).hex == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(try Digest.sha256.hmac(key: Data("Jefe".utf8), message).hex.hasPrefix("5bdcc146bf60754e"))
        #expect(try Digest.md5.hmac(key: Data("Jefe".utf8), message).hex == "750c783e6ab0b503eaa86e310a5db738")
        #expect(try Digest.sha256.hmac(key: Data(), Data()).hex == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        let keys = (0..<40).map { Data("key-\($0)".utf8) }
        let first = try keys.map { try Digest.sha256.hmac(key: $0, message) }
        #expect(Set(first).count == 40)
        let again = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for round in 0..<4 {
                for (index, key) in keys.enumerated() where index % 4 == round {
                    group.addTask { (index, try Digest.sha256.hmac(key: key, message)) }
                }
            }
            return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
        }
        #expect(keys.indices.map { again[$0] } == first)
    }
}
