import Foundation
import Sluice
import Testing

@Suite("Redaction of URLs and requests")
struct RedactionURLTests {
    @Test(arguments: [
        "password", "secret", "token", "sign", "signature", "sig", "api_key", "apikey", "access_token", "refresh_token", "id_token",
        "client_secret", "code", "session", "auth", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "key", "API_KEY", "Key",
    ])
    func eachDefaultSecretNameIsHiddenInAQueryWhateverItsCase(name: String) throws {
        let url = try #require(URL(string: "https://api.example.com/x?page=2&\(name)=s3cr3t-value&sort=asc"))
        #expect(Redaction.default.url(url) == "https://api.example.com/x?page=2&\(name)=<redacted>&sort=asc")
        #expect(Redaction.default.hidesAnyParameter(in: url))
    }

    @Test(arguments: [
        ("Location", "/next?page=2&token=T", "/next?page=2&token=<redacted>"),
        ("location", "https://ann:pw@other.example/x?sig=S#top", "https://ann:<redacted>@other.example/x?sig=<redacted>#top"),
        ("Content-Location", "/doc?api_key=K", "/doc?api_key=<redacted>"),
        ("Referer", "https://app.example/?code=C&state=x", "https://app.example/?code=<redacted>&state=x"),
        ("Location", "/plain?page=2", "/plain?page=2"),
        ("X-Other", "/next?token=T", "/next?token=T"),
    ])
    func fieldsWhoseValueIsAURLAreShownAsURLsAre(name: String, value: String, shown: String) {
        #expect(Redaction.default.value(ofHeader: name, value) == shown)
        #expect(Redaction.disabled.value(ofHeader: name, value) == value)
    }

    @Test func keyIsHiddenInAQueryButNotInAFormOrJSONBody() {
        #expect(Redaction.default.hidesQueryParameter("key"))
        #expect(!Redaction.default.hidesParameter("key"))
        #expect(Redaction.default.form("key=k1&api_key=k2") == "key=k1&api_key=<redacted>")
        let json = Redaction.default.json(["key": "k1", "client_secret": "k2"]) as? [String: String]
        #expect(json == ["key": "k1", "client_secret": "<redacted>"])
    }

    @Test func aUserInfoPasswordIsHiddenAndTheUserKept() throws {
        let url = try #require(URL(string: "http://ann:hunter2@127.0.0.1:8080/x?token=T1&password=P1#top"))
        #expect(Redaction.default.url(url) == "http://ann:<redacted>@127.0.0.1:8080/x?token=<redacted>&password=<redacted>#top")
        let userOnly = try #require(URL(string: "http://ann@127.0.0.1/x?q=a@b"))
        #expect(Redaction.default.url(userOnly) == "http://ann@127.0.0.1/x?q=a@b")
        #expect(Redaction.disabled.url(url) == url.absoluteString)
    }

    @Test func aRequestDescribesItselfRedacted() throws {
        let request = HTTPRequest(url: try #require(URL(string: "https://ann:hunter2@api.example.com/v1?access_token=AT&page=1")))
        #expect("\(request)" == "GET https://ann:<redacted>@api.example.com/v1?access_token=<redacted>&page=1")
    }

    @Test func addedNamesJoinTheDefaults() throws {
        let redaction = Redaction.default.adding(parameters: ["pin"], queryParameters: ["ref"])
        let url = try #require(URL(string: "https://a.example/?pin=1&ref=2&key=3&id=4"))
        #expect(redaction.url(url) == "https://a.example/?pin=<redacted>&ref=<redacted>&key=<redacted>&id=4")
        #expect(redaction.form("pin=1&ref=2") == "pin=<redacted>&ref=2")
    }

    @Test func addingARedactionHidesTheNamesOfBoth() throws {
        let client = Redaction(headerNames: ["X-Tenant"], parameterNames: ["pin"])
        let stage = Redaction(headerNames: ["X-Stage"], parameterNames: [], queryParameterNames: ["ref"])
        let both = stage.adding(client)
        #expect(both.headerNames == ["x-tenant", "x-stage"])
        #expect(both.parameterNames == ["pin"] && both.queryParameterNames == ["ref"])
        // Asked again, the same union comes back: stages add the request's policy on every call.
        #expect(stage.adding(client).isSame(as: both))
        // When one holds the other, the union is the larger one itself.
        let larger = client.adding(headers: ["X-More"])
        #expect(larger.adding(client).isSame(as: larger) && client.adding(larger).isSame(as: larger))
        // `.disabled` stays disabled (an explicit choice); adding it adds nothing.
        #expect(!Redaction.disabled.adding(client).isEnabled)
        #expect(client.adding(.disabled).isSame(as: client))
        // Names are compared without case: a stage naming a field the client names adds nothing.
        #expect(Redaction(headerNames: ["x-TENANT"], parameterNames: []).adding(client).isSame(as: client))
    }

    @Test func aRequestDescribesItselfUnderItsOwnPolicy() throws {
        var request = HTTPRequest(url: try #require(URL(string: "https://api.example.com/pay?pin=1234&page=1")))
        #expect("\(request)" == "GET https://api.example.com/pay?pin=1234&page=1")
        request.redaction = request.redaction.adding(parameters: ["pin"])
        #expect("\(request)" == "GET https://api.example.com/pay?pin=<redacted>&page=1")
    }
}

@Suite("Control characters from a server")
struct ControlCharacterTests {
    @Test func escapeAndBellAndC1AreEscapedAndPlainTextIsKept() {
        #expect("OK\u{1B}]0;owned\u{07}".escapingControlCharacters() == #"OK\u{1B}]0;owned\u{07}"#)
        #expect("A\u{9B}2J".escapingControlCharacters() == #"A\u{009B}2J"#)
        #expect("line\r\nnext\tcell".escapingControlCharacters() == #"line\r\nnext\tcell"#)
        #expect("line\r\nnext\tcell".escapingControlCharacters(keepingLineBreaks: true) == "line\\r\nnext\tcell")
        #expect("Café ✓".escapingControlCharacters() == "Café ✓")
    }
}

/// Issue 41, item 6: an echo is found whatever the case of the hex digits of its escapes.
@Suite("Echoed secrets in any case of their escapes")
struct SecretValuesCaseTests {
    @Test func percentAndJSONEscapesMatchInEitherCase() {
        var secrets = Redaction.SecretValues()
        secrets.add("s3cr3t wörd")
        // As the request encoded it (upper-case hex), and as an echo may write it (lower or mixed).
        for echo in ["s3cr3t%20w%C3%B6rd", "s3cr3t%20w%c3%b6rd", "s3cr3t+w%c3%B6rd", #"s3cr3t w\u00f6rd"#, #"s3cr3t w\u00F6rd"#] {
            #expect(secrets.masking("got \(echo)!") == "got \(Redaction.placeholder)!", "\(echo)")
            #expect(secrets.occurs(in: Data("x\(echo)".utf8)))
        }
        // Only the hex digits of escapes match in either case: the rest of the value does not.
        #expect(secrets.masking("S3CR3T%20W%C3%B6RD") == "S3CR3T%20W%C3%B6RD")
        #expect(secrets.masking("s3cr3t%20w%c3%b7rd") == "s3cr3t%20w%c3%b7rd")
    }
}
