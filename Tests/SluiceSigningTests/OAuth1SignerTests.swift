import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceSigning

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
