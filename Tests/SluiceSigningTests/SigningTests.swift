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
}

/// Vectors from AWS's Signature Version 4 test suite (the `aws-sig-v4-test-suite` AWS publishes,
/// as kept in awslabs/aws-c-auth `tests/aws-signing-test-suite/v4`): credentials AKIDEXAMPLE /
/// wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, region us-east-1, service "service",
/// 2015-08-30T12:36:00Z. The S3 examples are from the Amazon S3 API Reference, "Authenticating
/// Requests (AWS Signature Version 4)": a GET with a Range header, and a presigned GET.
@Suite("AWSSigV4Signer")
struct AWSSigV4Tests {
    let date = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z
    let signer = AWSSigV4Signer(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: nil, region: "us-east-1", service: "service")
    static let host = "https://example.amazonaws.com"

    func signature(_ request: HTTPRequest, _ signer: AWSSigV4Signer? = nil) throws -> String {
        let signed = try (signer ?? self.signer).sign(request, date: date)
        return String(try #require(signed.headers["Authorization"]).split(separator: "=").last!)
    }

    @Test func getVanillaStepByStep() throws {
        let get = request(.get, Self.host + "/")
        #expect(
            try signer.canonicalRequest(for: get, date: date) == """
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            try signer.stringToSign(for: get, date: date)
                == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"
        )
        let signed = try signer.sign(get, date: date)
        #expect(
            signed.headers["Authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        )
        #expect(signed.headers["X-Amz-Date"] == "20150830T123600Z")
    }

    @Test(arguments: [
        (
            "get-vanilla-query-order-key-case", request(.get, host + "/?Param2=value2&Param1=value1"),
            "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
        ),
        (
            "get-header-value-trim", request(.get, host + "/", [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")]),
            "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
        ),
        (
            "get-unreserved", request(.get, host + "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
            "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"
        ),
        ("get-utf8", request(.get, host + "/%E1%88%B4"), "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        ("get-vanilla-utf8-query", request(.get, host + "/?%E1%88%B4=bar"), "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        (
            "get-vanilla-query-unreserved",
            request(
                .get,
                host + "/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
            ),
            "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"
        ),
        (
            "get-header-key-duplicate", request(.get, host + "/", [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")]),
            "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"
        ),
        (
            "get-header-value-order",
            request(.get, host + "/", [("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2")]),
            "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"
        ),
        ("post-vanilla", request(.post, host + "/"), "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        ("post-vanilla-query", request(.post, host + "/?Param1=value1"), "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        ("post-header-key-sort", request(.post, host + "/", [("My-Header1", "value1")]), "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
        ("get-space-normalized", request(.get, host + "/example%20space/"), "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        // Normalisation: these canonicalise to "/", as get-vanilla does, so they sign the same.
        ("get-slash-dot-slash", request(.get, host + "/./"), "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("get-relative-relative", request(.get, host + "/example1/example2/../.."), "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
    ])
    func theSuite(name: String, request: HTTPRequest, expected: String) throws {
        #expect(try signature(request) == expected, "\(name)")
    }

    @Test func aSessionTokenIsSentAndSigned() throws {
        let token = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
        let withToken = AWSSigV4Signer(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            sessionToken: token, region: "us-east-1", service: "service")
        let signed = try withToken.sign(request(.get, Self.host + "/"), date: date)
        #expect(signed.headers["X-Amz-Security-Token"] == token)
        #expect(try signature(request(.get, Self.host + "/"), withToken) == "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8")
    }

    @Test func aSignedFormBodyWithItsContentHash() throws {
        let form = request(.post, Self.host + "/", [("Content-Type", "application/x-www-form-urlencoded"), ("Content-Length", "13")], body: "Param1=value1")
        let hashing = AWSSigV4Signer(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            sessionToken: nil, region: "us-east-1", service: "service",
            options: .init(addsContentSHA256Header: true))
        #expect(try signature(form, hashing) == "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b")
        #expect(try hashing.sign(form, date: date).headers["X-Amz-Content-Sha256"] == "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e")
    }

    @Test func anExistingDateIsReplacedAndTheSigningKeyMatchesAWSsExample() throws {
        let stale = request(.get, Self.host + "/", [("X-Amz-Date", "19990101T000000Z")])
        let signed = try signer.sign(stale, date: date)
        #expect(signed.headers.values(for: "X-Amz-Date") == ["20150830T123600Z"])
        #expect(try signature(stale) == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
        // "Examples of how to derive a signing key": 20120215, us-east-1, iam.
        let iam = AWSSigV4Signer(
            accessKeyID: "", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: nil,
            region: "us-east-1", service: "iam")
        #expect(try iam.signingKey(Date(timeIntervalSince1970: 1_329_264_000)).hex == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    let s3 = AWSSigV4Signer(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        sessionToken: nil, region: "us-east-1", service: "s3", options: .s3)
    let may24 = Date(timeIntervalSince1970: 1_369_353_600)  // 20130524T000000Z

    @Test func s3DocumentedGetWithRange() throws {
        let get = request(.get, "https://examplebucket.s3.amazonaws.com/test.txt", [("Range", "bytes=0-9")])
        let signed = try s3.sign(get, date: may24)
        #expect(
            signed.headers["Authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test func s3DocumentedPresignedGet() throws {
        let url = try s3.presign(request(.get, "https://examplebucket.s3.amazonaws.com/test.txt"), date: may24, expires: 86_400)
        #expect(
            url.absoluteString
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        )
    }

    @Test func s3PathsAreNotNormalised() throws {
        let canonical = try s3.canonicalRequest(for: request(.get, "https://b.s3.amazonaws.com/a/./b//c"), date: may24)
        #expect(canonical.split(separator: "\n", omittingEmptySubsequences: false)[1] == "/a/./b//c")
        let normalised = try signer.canonicalRequest(for: request(.get, Self.host + "/a/./b//c/"), date: date)
        #expect(normalised.split(separator: "\n", omittingEmptySubsequences: false)[1] == "/a/b/c/")
    }

    @Test func badInputsAreClearErrors() throws {
        #expect {
            _ = try s3.presign(request(.get, "https://b.s3.amazonaws.com/x"), date: may24, expires: 0)
        } throws: { ($0 as? SluiceError)?.code == .invalidBody && ($0 as? SluiceError)?.message == "a presigned URL must expire in 1 to 604800 seconds, not 0" }
        #expect {
            _ = try signer.sign(HTTPRequest(url: URL(string: "relative/path")!), date: date)
        } throws: { ($0 as? SluiceError)?.code == .invalidURL && ($0 as? SluiceError)?.message == "relative/path has no host to sign" }
    }
}

/// The three signed requests of RFC 5849 §1.2 (consumer dpf43f3p2l4k3l03 / kd94hf93k423kf44).
@Suite("OAuth1Signer")
struct OAuth1Tests {
    func signer(
        token: String?, secret: String?, nonce: String, method: OAuth1Signer.Method = .hmacSHA1,
        callback: String? = nil, verifier: String? = nil
    ) -> OAuth1Signer {
        OAuth1Signer(
            configuration: .init(
                consumerKey: "dpf43f3p2l4k3l03", consumerSecret: "kd94hf93k423kf44", token: token, tokenSecret: secret,
                method: method, callback: callback, verifier: verifier, realm: "Photos", nonce: { nonce }
            ))
    }

    func signature(_ signed: HTTPRequest) -> String? {
        guard let header = signed.headers["Authorization"], let range = header.range(of: "oauth_signature=\"") else { return nil }
        return String(header[range.upperBound...].prefix { $0 != "\"" }).removingPercentEncoding
    }

    @Test func temporaryCredentialsRequest() throws {
        let signed = try signer(token: nil, secret: nil, nonce: "wIjqoS", callback: "http://printer.example.com/ready")
            .sign(request(.post, "https://photos.example.net/initiate"), date: Date(timeIntervalSince1970: 137_131_200))
        #expect(signature(signed) == "74KNZJeDHnMBp0EMJ9ZHt/XKycU=")
        let header = try #require(signed.headers["Authorization"])
        #expect(header.hasPrefix("OAuth realm=\"Photos\", oauth_consumer_key=\"dpf43f3p2l4k3l03\""))
        #expect(header.contains("oauth_callback=\"http%3A%2F%2Fprinter.example.com%2Fready\""))
        #expect(header.contains("oauth_signature=\"74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D\""))
    }

    @Test func tokenRequest() throws {
        let signed = try signer(token: "hh5s93j4hdidpola", secret: "hdhd0244k9j7ao03", nonce: "walatlh", verifier: "hfdp7dh39dks9884")
            .sign(request(.post, "https://photos.example.net/token"), date: Date(timeIntervalSince1970: 137_131_201))
        #expect(signature(signed) == "gKgrFCywp7rO0OXSjdot/IHF7IU=")
    }

    @Test func protectedResourceRequest() throws {
        let photo = request(.get, "http://photos.example.net/photos?file=vacation.jpg&size=original")
        let oauth = signer(token: "nnch734d00sl2jdk", secret: "pfkkdhi9sl3r4s00", nonce: "chapoH")
        #expect(signature(try oauth.sign(photo, date: Date(timeIntervalSince1970: 137_131_202))) == "MdpQcU8iPSUjWoN/UDMsK2sui9I=")
        #expect(
            try oauth.baseString(for: photo, date: Date(timeIntervalSince1970: 137_131_202))
                == "GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3DchapoH%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131202%26oauth_token%3Dnnch734d00sl2jdk%26size%3Doriginal"
        )
    }

    @Test func plaintextAndFormBodies() throws {
        let plain = try signer(token: "nnch734d00sl2jdk", secret: "pfkkdhi9sl3r4s00", nonce: "n", method: .plaintext)
            .sign(request(.get, "http://photos.example.net/photos"), date: Date(timeIntervalSince1970: 1))
        #expect(signature(plain) == "kd94hf93k423kf44&pfkkdhi9sl3r4s00")
        // A form body's parameters are part of the base string.
        let form = request(.post, "https://api.example.com/upload", [("Content-Type", "application/x-www-form-urlencoded")], body: "b=2&a=1+x")
        let base = try signer(token: nil, secret: nil, nonce: "n").baseString(for: form, date: Date(timeIntervalSince1970: 1))
        #expect(base.contains("a%3D1%2520x%26b%3D2"))
    }
}

@Suite("HMACParameterSigner and SigningMiddleware")
struct HMACSignerTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    // The expected values were computed with Python 3.11's hmac module over the same string.
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
