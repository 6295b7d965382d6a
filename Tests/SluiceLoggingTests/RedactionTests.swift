import Foundation
import Sluice
import SluiceCurl
import SluiceLogging
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite struct RedactionTests {
    @Test(arguments: [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Amz-Security-Token", "authorization", "SET-COOKIE", "X-Api-Key", "api-key",
        "X-Auth-Token", "x-access-token",
    ])
    func eachDefaultHeaderIsHidden(_ name: String) {
        #expect(Redaction.default.value(ofHeader: name, "secret-value") == "<redacted>")
    }

    @Test func otherHeadersAreShown() {
        #expect(Redaction.default.value(ofHeader: "Accept", "text/html") == "text/html")
        #expect(Redaction.default.value(ofHeader: "X-Request-Id", "k") == "k")
    }

    @Test(arguments: ["signature", "sign", "token", "password", "secret", "Token", "user[password]", "PASSWORD"])
    func eachDefaultParameterIsHiddenInQueriesFormsAndJSON(_ name: String) throws {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let url = URL(string: "https://example.com/p?a=1&\(encoded)=s3cr3t&b=2#frag")!
        #expect(Redaction.default.url(url) == "https://example.com/p?a=1&\(encoded)=<redacted>&b=2#frag")
        #expect(Redaction.default.form("\(encoded)=s3cr3t&keep=1") == "\(encoded)=<redacted>&keep=1")
        let json = Redaction.default.json(["outer": [[name: "s3cr3t", "keep": 1]]]) as? [String: [[String: Any]]]
        #expect(json?["outer"]?[0][name] as? String == "<redacted>")
        #expect(json?["outer"]?[0]["keep"] as? Int == 1)
    }

    @Test(arguments: [
        "https://e.com/p?signs=1&tokens=2&sigma=3&Sign2=4",  // near misses by length and by name
        "https://e.com/p?a=x%3Dtoken&b=token=1&c=%25sign",  // hidden names only inside values
        "https://e.com/p?token&x=1",  // a name without a value
        "https://e.com/p?",
        "https://e.com/p#token=1",  // a fragment is not a query
        "https://e.com/p",
    ])
    func queriesWithNothingHiddenComeBackByteForByte(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(Redaction.default.url(url) == url.absoluteString)
    }

    @Test func longAddedNamesAreFoundToo() throws {
        let long = String(repeating: "k", count: 70)
        let url = try #require(URL(string: "https://e.com/p?\(long)=v&\(long)x=w&\(long.uppercased())=u"))
        #expect(Redaction.default.adding(parameters: [long]).url(url) == "https://e.com/p?\(long)=<redacted>&\(long)x=w&\(long.uppercased())=<redacted>")
    }

    @Test func moreNamesCanBeAddedAndOnlyDisabledShowsAll() {
        let custom = Redaction.default.adding(headers: ["X-Api-Key"], parameters: ["pin"])
        #expect(custom.value(ofHeader: "x-api-key", "k") == "<redacted>")
        #expect(custom.value(ofHeader: "Authorization", "Bearer a") == "<redacted>")
        #expect(custom.form("pin=1234&token=t") == "pin=<redacted>&token=<redacted>")
        let url = URL(string: "https://example.com/?token=t")!
        #expect(Redaction.disabled.url(url) == "https://example.com/?token=t")
        #expect(Redaction.disabled.value(ofHeader: "Authorization", "Bearer a") == "Bearer a")
        #expect(Redaction.disabled.adding(parameters: ["pin"]) == .disabled)
        #expect(LoggingMiddleware.Configuration.default.redaction == .default)
    }
}
