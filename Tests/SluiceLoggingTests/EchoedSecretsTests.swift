import Foundation
import Sluice
import SluiceCurl
import SluiceLogging
import SluiceTestSupport
import SluiceTesting
import Testing

/// httpbin's `/anything` sends back every part of the request: its headers, its query and its
/// body. Whatever echoes them, no logged text and no HAR entry shows a secret the request carried.
@Suite("Secrets a server echoes", .timeLimit(.minutes(1)))
struct EchoedSecretsTests {
    /// Each secret the request carries, none shorter than the echo rule's minimum.
    static let secrets = ["BEARER-TOK-1", "QUERY-SECRET-2", "PW-000", "api-key-3", "form-signature-4", "cookie-sess-5", "ann:basic-pw-6", "basic-pw-6"]

    func echoingRequest(_ httpbin: String, json: Bool) -> HTTPRequest {
        var request = HTTPRequest(
            method: .post, url: URL(string: httpbin + "/anything?page=2&token=QUERY-SECRET-2")!,
            headers: [
                "Authorization": "Bearer BEARER-TOK-1", "X-Api-Key": "api-key-3", "Cookie": "theme=dark; session=cookie-sess-5",
                "Proxy-Authorization": "Basic " + Data("ann:basic-pw-6".utf8).base64EncodedString(),
            ])
        if json {
            try? request.headers.set(name: "Content-Type", value: "application/json")
            request.body = .bytes(Data(#"{"user":"ann","password":"PW-000","nested":{"signature":"form-signature-4"}}"#.utf8))
        } else {
            try? request.headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(Data("user=ann&password=PW-000&sign=form-signature-4".utf8))
        }
        return request
    }

    func log(_ format: LogFormat, json: Bool) async throws -> (log: String, echo: String) {
        let httpbin = try InteropServers.value("SLUICE_HTTPBIN_URL")
        let lines = Locked<[String]>([])
        let logger = LoggingMiddleware(
            configuration: .init(level: .body, sink: .closure { line in lines.withLock { $0.append(line) } }, format: format))
        let response = try await Pipeline(middlewares: [logger], transport: CurlTransport()).send(echoingRequest(httpbin, json: json))
        #expect(response.status.code == 200)
        return (lines.withLock { $0.joined(separator: "\n") }, String(decoding: response.body, as: UTF8.self))
    }

    @Test(arguments: [LogFormat.text, .jsonLines], [true, false])
    func noLoggedTextShowsASecretTheServerEchoed(format: LogFormat, json: Bool) async throws {
        let (log, echo) = try await log(format, json: json)
        // The echo really carries them: otherwise the test proves nothing.
        for secret in ["BEARER-TOK-1", "QUERY-SECRET-2", "PW-000", "api-key-3", "form-signature-4", "cookie-sess-5"] {
            #expect(echo.contains(secret), "httpbin did not echo \(secret)")
        }
        for secret in Self.secrets { #expect(!log.contains(secret), "\(secret) is in the log:\n\(log)") }
        #expect(log.contains("<redacted>"))
        // What was not secret is still there, and the request body is logged as it was sent.
        #expect(log.contains("page=2") && log.contains("ann"))
        if format == .text {
            #expect(
                log.contains(
                    json
                        ? #"> {"user":"ann","password":"<redacted>","nested":{"signature":"<redacted>"}}"#
                        : "> user=ann&password=<redacted>&sign=<redacted>"))
        }
    }

    @Test func aHAREntryShowsNoSecretTheServerEchoed() async throws {
        let httpbin = try InteropServers.value("SLUICE_HTTPBIN_URL")
        let recorder = HARRecorder()
        let pipeline = Pipeline(middlewares: [HARRecorderMiddleware(recorder: recorder)], transport: CurlTransport())
        _ = try await pipeline.send(echoingRequest(httpbin, json: true))
        let text = String(decoding: try recorder.data(), as: UTF8.self)
        for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) is in the HAR file") }
        #expect(text.contains("page=2") && text.contains("ann"))
    }
}

@Suite("Redaction of JSON text where it stands")
struct RedactionJSONTextTests {
    @Test func hiddenValuesAreReplacedAndEveryOtherByteKept() {
        let text = #"{ "user" : "ann", "password":"p\"w", "deep": [ {"token": {"a": [1, "}"]}}, 3 ], "n":-1.5e3,"code":12 }"#
        #expect(
            Redaction.default.jsonText(text)
                == #"{ "user" : "ann", "password":"<redacted>", "deep": [ {"token": "<redacted>"}, 3 ], "n":-1.5e3,"code":"<redacted>" }"#)
        #expect(Redaction.default.jsonText(#"["password", {"a":"password"}]"#) == #"["password", {"a":"password"}]"#)
        #expect(Redaction.default.jsonText(#"{"pass\u0077ord":"x"}"#) == #"{"pass\u0077ord":"<redacted>"}"#)
        #expect(Redaction.default.jsonText(#"{"password":"cut"#) == nil)
        #expect(Redaction.disabled.jsonText(#"{"password":"x"}"#) == #"{"password":"x"}"#)
    }
}

@Suite("Secrets echoed into a basic log line")
struct BasicLineEchoTests {
    @Test func aReasonPhraseThatEchoesATokenIsMasked() async throws {
        let lines = Locked<[String]>([])
        let logger = LoggingMiddleware(configuration: .init(level: .basic, sink: .closure { line in lines.withLock { $0.append(line) } }))
        let reply = HTTPResponse(status: HTTPStatus(code: 200, reasonPhrase: "OK for Bearer TOKEN-xyz1"))
        let harness = MiddlewareHarness(logger, replies: [.response(reply), .response(HTTPResponse(status: .ok))])
        let request = HTTPRequest(url: URL(string: "https://api.example.com/x")!, headers: ["Authorization": "Bearer TOKEN-xyz1"])
        _ = try await harness.send(request)
        _ = try await harness.send(request)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged[0].contains("200 OK for <redacted>") && !logged[0].contains("TOKEN-xyz1"), "\(logged[0])")
        #expect(logged[1].contains("200 OK,"))
    }
}
