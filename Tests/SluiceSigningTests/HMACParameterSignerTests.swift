import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceSigning

@Suite("HMACParameterSigner and SigningMiddleware")
struct HMACSignerTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    // The expected values were computed with Python 3.11's hmac module over the same string.
    @Test func theDefaultNoncesAreFreshVersion4UUIDs() throws {
        let hmac = HMACParameterSigner.Configuration(key: Data("k".utf8))
        let oauth = OAuth1Signer.Configuration(consumerKey: "c", consumerSecret: "s")
        let dashed = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        let bare = try Regex("^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$")
        var seen = Set<String>()
        for _ in 0..<200 {
            let nonce = hmac.nonce()
            #expect(nonce.wholeMatch(of: dashed) != nil, "\(nonce)")
            #expect(UUID(uuidString: nonce) != nil)
            let oauthNonce = oauth.nonce()
            #expect(oauthNonce.wholeMatch(of: bare) != nil, "\(oauthNonce)")
            seen.insert(nonce)
            seen.insert(oauthNonce)
        }
        #expect(seen.count == 400)
    }

    @Test func theParametersAreSortedSignedAndSent() throws {
        let signer = HMACParameterSigner(configuration: .init(key: Data("secret".utf8), placement: .parameter("sign"), nonce: { "n-1" }))
        let signed = try signer.sign(request(.get, "https://api.example.com/list?q=caf%C3%A9%20au%20lait&page=2"), date: date)
        let query = try #require(signed.url.query)
        #expect(query == "q=caf%C3%A9%20au%20lait&page=2&timestamp=1700000000&nonce=n-1&sign=0747a3b18febcccfae323f97b2812c377d846df4ceeb9e2ac605aa45ed8e4f8a")
        #expect(
            signer.stringToSign(request(.get, "https://x/?q=caf%C3%A9%20au%20lait&page=2&timestamp=1700000000&nonce=n-1"))
                == "nonce=n-1&page=2&q=caf%C3%A9%20au%20lait&timestamp=1700000000")
    }

    @Test func formBodiesAndHeadersAndBase64() throws {
        let signer = HMACParameterSigner(
            configuration: .init(
                key: Data("secret".utf8), digest: .sha1, encoding: .base64,
                placement: .header("X-Sign"), nonce: { "n-1" }))
        let form = request(
            .post, "https://api.example.com/list", [("Content-Type", "application/x-www-form-urlencoded")],
            body: "q=caf%C3%A9+au+lait&page=2")
        let signed = try signer.sign(form, date: date)
        #expect(signed.headers["X-Sign"] == "4P3slt9+R+qI4CE1NwpgslUpMco=")
        guard case .bytes(let body) = signed.body else { Issue.record("not bytes"); return }
        #expect(String(decoding: body, as: UTF8.self) == "q=caf%C3%A9+au+lait&page=2&timestamp=1700000000&nonce=n-1")
        #expect(signed.url.query == nil)
    }

    @Test func everyAttemptIsSignedAfresh() async throws {
        let clock = Clock()
        let signer = HMACParameterSigner(configuration: .init(key: Data("k".utf8), nonce: { UUID().uuidString }))
        let harness = MiddlewareHarness(
            SigningMiddleware(signer: signer, configuration: .init(clock: { clock.tick() })),
            replies: [.status(.ok), .status(.ok)])
        _ = try await harness.send(request(.get, "https://api.example.com/a"))
        _ = try await harness.send(request(.get, "https://api.example.com/a"))
        let stamps = harness.forwarded.map { SigningText.queryPairs($0.url).first { $0.0 == "timestamp" }?.1 }
        #expect(stamps == ["1", "2"])
        #expect(harness.forwarded[0].headers["X-Signature"] != harness.forwarded[1].headers["X-Signature"])
    }
}

final class Clock: Sendable {
    private let seconds = Locked(0)
    func tick() -> Date {
        Date(
            timeIntervalSince1970: TimeInterval(
                seconds.withLock {
                    $0 += 1; return $0
                }))
    }
}
