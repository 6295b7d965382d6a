import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceSigning

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

    /// Issue 41, item 4: a signer used alone signs the host curl sends (`127.1` is `127.0.0.1`).
    @Test func aSignerUsedAloneSignsTheHostCurlSends() throws {
        for host in ["127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1"] {
            let canonical = try signer.canonicalRequest(for: request(.get, "http://\(host):8080/items"), date: date)
            #expect(canonical.contains("\nhost:127.0.0.1:8080\n"), "\(host)")
        }
        let named = try signer.canonicalRequest(for: request(.get, "http://Api.Example.com/items"), date: date)
        #expect(named.contains("\nhost:api.example.com\n"))
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
