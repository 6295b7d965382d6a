import Foundation
import Sluice
import SluiceCurl
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceLogging

/// Collects every record a sink receives.
final class Records: Sendable {
    private let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func sink(isTerminal: Bool = false) -> LogSink { .closure(isTerminal: isTerminal) { record in self.lines.withLock { $0.append(record) } } }
}

/// A clock that reads 0 ms, then 35 ms, then 70 ms…: every call takes exactly 35 ms.
func steppingClock() -> @Sendable () -> Duration {
    let ticks = Locked(0)
    return {
        .milliseconds(
            35
                * ticks.withLock { tick in
                    defer { tick += 1 }; return tick
                })
    }
}

func logger(
    _ level: LogLevel, _ records: Records, format: LogFormat = .text, redaction: Redaction = .default,
    bodyLimit: Int = 16_384, terminal: Bool = false
) -> LoggingMiddleware {
    LoggingMiddleware(
        configuration: .init(
            level: level, sink: records.sink(isTerminal: terminal), redaction: redaction,
            format: format, bodyLimit: bodyLimit, now: steppingClock()))
}

let api = URL(string: "https://api.example.com/login?user=ann&token=t0k3n")!

func loginRequest() -> HTTPRequest {
    HTTPRequest(
        method: .post, url: api,
        headers: ["Content-Type": "application/json", "Authorization": "Bearer abc", "Accept": "application/json"],
        body: .bytes(Data(#"{"user":"ann","password":"hunter2"}"#.utf8)))
}

let loginReply = MockTransport.Reply.response(
    HTTPResponse(
        status: .ok, headers: ["Content-Type": "application/json", "Set-Cookie": "session=s3cr3t"],
        body: Data(#"{"ok":true,"token":"xyz"}"#.utf8)))

@Suite struct LevelOutputTests {
    @Test func noneWritesNothing() async throws {
        let records = Records()
        let harness = MiddlewareHarness(logger(.none, records), replies: [loginReply])
        _ = try await harness.send(loginRequest())
        #expect(records.all.isEmpty)
        #expect(harness.forwarded.count == 1)
    }

    @Test func basicIsOneLine() async throws {
        let records = Records()
        _ = try await MiddlewareHarness(logger(.basic, records), replies: [loginReply]).send(loginRequest())
        #expect(records.all == ["POST https://api.example.com/login?user=ann&token=<redacted> -> 200 OK, 25 B, 35 ms, network"])
    }

    @Test func theOperationIsNamedInTheLineAndTheJSON() async throws {
        var request = loginRequest()
        request.operationName = "logIn\u{1B}[2J"
        let text = Records(), json = Records()
        _ = try await MiddlewareHarness(logger(.basic, text), replies: [loginReply]).send(request)
        _ = try await MiddlewareHarness(logger(.basic, json, format: .jsonLines), replies: [loginReply]).send(request)
        #expect(text.all == [#"POST https://api.example.com/login?user=ann&token=<redacted> (logIn\u{1B}[2J) -> 200 OK, 25 B, 35 ms, network"#])
        #expect(
            json.all == [
                #"{"bytes":25,"method":"POST","milliseconds":35,"operation":"logIn\u001b[2J","outcome":"ok","source":"network","status":200,"#
                    + #""url":"https://api.example.com/login?user=ann&token=<redacted>"}"#
            ])
    }

    @Test func headersAddsBothFieldSectionsRedacted() async throws {
        let records = Records()
        _ = try await MiddlewareHarness(logger(.headers, records), replies: [loginReply]).send(loginRequest())
        #expect(
            records.all == [
                """
                POST https://api.example.com/login?user=ann&token=<redacted> -> 200 OK, 25 B, 35 ms, network
                > Content-Type: application/json
                > Authorization: <redacted>
                > Accept: application/json
                < Content-Type: application/json
                < Set-Cookie: <redacted>
                """
            ])
    }

    @Test func bodyShowsTheBytesSentWithHiddenValuesReplacedWhereTheyStand() async throws {
        let records = Records()
        _ = try await MiddlewareHarness(logger(.body, records), replies: [loginReply]).send(loginRequest())
        #expect(
            records.all == [
                """
                POST https://api.example.com/login?user=ann&token=<redacted> -> 200 OK, 25 B, 35 ms, network
                > Content-Type: application/json
                > Authorization: <redacted>
                > Accept: application/json
                > {"user":"ann","password":"<redacted>"}
                < Content-Type: application/json
                < Set-Cookie: <redacted>
                < {"ok":true,"token":"<redacted>"}
                """
            ])
    }

    @Test func bodyOnATerminalIsPrettyJSONRedacted() async throws {
        let records = Records()
        _ = try await MiddlewareHarness(logger(.body, records, terminal: true), replies: [loginReply]).send(loginRequest())
        let plain = records.all.map { $0.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) }
        #expect(
            plain == [
                """
                POST https://api.example.com/login?user=ann&token=<redacted> -> 200 OK, 25 B, 35 ms, network
                > Content-Type: application/json
                > Authorization: <redacted>
                > Accept: application/json
                > {
                >   "password" : "<redacted>",
                >   "user" : "ann"
                > }
                < Content-Type: application/json
                < Set-Cookie: <redacted>
                < {
                <   "ok" : true,
                <   "token" : "<redacted>"
                < }
                """
            ])
    }

    @Test func bodyShowsBinaryAsItsSizeAndCutsLongText() async throws {
        let records = Records()
        let binary = MockTransport.Reply.response(
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "image/png"],
                body: Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2])))
        let harness = MiddlewareHarness(logger(.body, records, bodyLimit: 5), replies: [binary])
        _ = try await harness.send(
            HTTPRequest(
                method: .put, url: URL(string: "https://example.com/note")!,
                headers: ["Content-Type": "text/plain"], body: .bytes(Data("hello world".utf8))))
        #expect(
            records.all == [
                """
                PUT https://example.com/note -> 200 OK, 7 B, 35 ms, network
                > Content-Type: text/plain
                > hello
                > … (6 more bytes)
                < Content-Type: image/png
                < (binary, 7 B)
                """
            ])
    }

    @Test func aStreamedBodyIsNeverReadByTheLogger() async throws {
        let records = Records()
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("part one, ".utf8))
            continuation.yield(Data("part two".utf8))
            continuation.finish()
        }
        let harness = MiddlewareHarness(logger(.body, records), replies: [.status(.created)])
        _ = try await harness.send(
            HTTPRequest(
                method: .post, url: URL(string: "https://example.com/upload")!,
                body: .stream(.oneShot(length: 18, chunks))))
        #expect(harness.forwardedBodies == [Data("part one, part two".utf8)])  // all of it reached the transport
        #expect(
            records.all == [
                """
                POST https://example.com/upload -> 201 Created, 0 B, 35 ms, network
                > (stream body, 18 B, not read)
                """
            ])
    }

    @Test func failedAndCancelledAreTold() async throws {
        let records = Records()
        let failing = MiddlewareHarness(
            logger(.basic, records),
            transport: .failing(with: SluiceError(.timedOut, "connect timed out after 10 s")))
        let url = URL(string: "https://example.com/slow")!
        await #expect(throws: SluiceError.self) { try await failing.send(HTTPRequest(url: url)) }
        #expect(records.all.count == 1)
        #expect(records.all[0].hasPrefix("GET https://example.com/slow -> failed: timedOut"))
        #expect(records.all[0].hasSuffix(": connect timed out after 10 s, 35 ms"))

        let cancelled = Records()
        let started = AsyncStream<Void>.makeStream()
        let hanging = MiddlewareHarness(logger(.basic, cancelled)) { _, _ in
            started.continuation.yield()
            try await Task.sleep(for: .seconds(60))
            return .status(.ok)
        }
        let call = Task { try await hanging.send(HTTPRequest(url: url)) }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        call.cancel()
        _ = await call.result
        #expect(cancelled.all == ["GET https://example.com/slow -> cancelled after 35 ms"])
    }

    @Test func attemptsComeFromTheRetryInside() async throws {
        let records = Records(), json = Records()
        let transport = MockTransport(replies: [.status(.serviceUnavailable), .status(.ok, body: "fine")])
        let policy = DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(1)))
        let pipeline = Pipeline(
            middlewares: [logger(.basic, records), logger(.basic, json, format: .jsonLines), RetryMiddleware(policy: policy)],
            transport: transport)
        _ = try await pipeline.send(HTTPRequest(url: URL(string: "https://example.com/flaky")!))
        #expect(records.all == ["GET https://example.com/flaky -> 200 OK, 4 B, 35 ms, network, retries 1"])
        #expect(
            json.all == [
                #"{"bytes":4,"method":"GET","milliseconds":35,"outcome":"ok","reported":{"retries":1},"source":"network","status":200,"url":"https://example.com/flaky"}"#
            ])
    }

    @Test func tracingAddsPerMiddlewareTimings() async throws {
        let records = Records()
        let policy = DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(1)))
        let pipeline = Pipeline(
            middlewares: [logger(.basic, records), RetryMiddleware(policy: policy)],
            transport: MockTransport(replies: [.status(.badGateway), .status(.ok)]))
        _ = try await pipeline.send(HTTPRequest(url: URL(string: "https://example.com/")!), context: RequestContext(isTracing: true))
        let lines = try #require(records.all.first).split(separator: "\n")
        try #require(lines.count == 3)  // the stages inside the logger, not the logger itself
        #expect(lines[1].hasPrefix("  middleware RetryMiddleware") && lines[1].contains("1 call "))
        #expect(lines[2].hasPrefix("  transport MockTransport") && lines[2].contains("2 calls"))
    }

    @Test func coloursOnlyOnATerminal() async throws {
        let plain = Records(), terminal = Records()
        _ = try await MiddlewareHarness(logger(.basic, plain), replies: [.status(.notFound)]).send(HTTPRequest(url: api))
        _ = try await MiddlewareHarness(logger(.basic, terminal, terminal: true), replies: [.status(.notFound)]).send(HTTPRequest(url: api))
        #expect(!plain.all[0].contains("\u{1B}["))
        #expect(terminal.all[0].hasPrefix("\u{1B}[1mGET\u{1B}[0m "))
        #expect(terminal.all[0].contains("\u{1B}[33m404 Not Found\u{1B}[0m"))
    }

    @Test func jsonLinesParseBackWithTheFields() async throws {
        let records = Records()
        _ = try await MiddlewareHarness(logger(.body, records, format: .jsonLines), replies: [loginReply]).send(loginRequest())
        let line = try #require(records.all.first)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["method"] as? String == "POST")
        #expect(object["url"] as? String == "https://api.example.com/login?user=ann&token=<redacted>")
        #expect(object["outcome"] as? String == "ok")
        #expect(object["status"] as? Int == 200)
        #expect(object["bytes"] as? Int == 25)
        #expect(object["milliseconds"] as? Double == 35)
        #expect(object["reported"] == nil, "a call no module reported on has no reported facts")
        #expect(object["source"] as? String == "network")
        #expect(
            object["requestHeaders"] as? [[String]] == [
                ["Content-Type", "application/json"], ["Authorization", "<redacted>"], ["Accept", "application/json"],
            ])
        #expect(object["responseHeaders"] as? [[String]] == [["Content-Type", "application/json"], ["Set-Cookie", "<redacted>"]])
        #expect(object["requestBody"] as? String == #"{"user":"ann","password":"<redacted>"}"#)
        #expect((object["responseBody"] as? String)?.contains("xyz") == false)
    }
}

@Suite struct StreamedBodyLoggingTests {
    @Test func aStreamedBodyIsLoggedOnceReadWithTheBytesTheReaderGot() async throws {
        let records = Records()
        let parts = Locked([Data("abc".utf8), Data("defgh".utf8)])
        var streamed = HTTPResponse(status: .ok)
        streamed.bodyStream = ResponseBodyStream(pull: { parts.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
        let logger = LoggingMiddleware(configuration: .init(level: .basic, sink: records.sink(), now: steppingClock()))
        let harness = MiddlewareHarness(logger, replies: [.response(streamed)])
        var request = HTTPRequest(url: URL(string: "https://example.com/feed")!)
        request.streamsResponseBody = true
        let response = try await harness.send(request)
        #expect(records.all.isEmpty)  // nothing until the body has been read
        #expect(try await response.bodyStream!.collect() == Data("abcdefgh".utf8))
        #expect(records.all == ["GET https://example.com/feed -> 200 OK, 8 B, 35 ms, network"])
    }

    /// Issue 41, item 8: the answer came, so the line keeps its status (a generated client that
    /// ignores an undocumented 503's body logged `cancelled` and lost it), and says the body was
    /// let go.
    @Test(arguments: [LogFormat.text, .jsonLines])
    func aStreamedBodyLetGoBeforeItsEndKeepsItsStatus(_ format: LogFormat) async throws {
        let records = Records()
        var streamed = HTTPResponse(status: .serviceUnavailable)
        streamed.bodyStream = ResponseBodyStream(pull: { Data("more".utf8) })  // never ends
        let logger = LoggingMiddleware(configuration: .init(level: .basic, sink: records.sink(), format: format, now: steppingClock()))
        var request = HTTPRequest(url: URL(string: "https://example.com/feed")!)
        request.streamsResponseBody = true
        var response: HTTPResponse? = try await MiddlewareHarness(logger, replies: [.response(streamed)]).send(request)
        #expect(try await response?.bodyStream?.next() == Data("more".utf8))
        response = nil  // the reader lets the stream go
        switch format {
        case .text:
            #expect(records.all == ["GET https://example.com/feed -> 503 Service Unavailable, 4 B, 35 ms, network, body let go before its end"])
        case .jsonLines:
            #expect(
                records.all == [
                    #"{"bodyLetGo":true,"bytes":4,"method":"GET","milliseconds":35,"outcome":"ok","source":"network","status":503,"url":"https://example.com/feed"}"#
                ])
        }
    }
}

@Suite struct EnvironmentToggleTests {
    @Test func inAReleaseBuildSluiceLogIsIgnoredAndThatIsSaidOnce() {
        let said = Records()
        let notice = OnceNotice(write: said.sink().write)
        let logger = LoggingMiddleware(level: .none, sink: .null)
        for _ in 0..<3 {
            #expect(logger.configured(["SLUICE_LOG": "headers"], isReleaseBuild: true, notice: notice) == nil)
        }
        #expect(
            said.all == [
                "sluice: SLUICE_LOG=headers is ignored in a release build; to allow it, create the logger with honoursEnvironmentInRelease: true"
            ])
        // Unset, nothing is said; allowed, it applies.
        let quiet = Records()
        #expect(logger.configured([:], isReleaseBuild: true, notice: OnceNotice(write: quiet.sink().write)) == nil)
        #expect(quiet.all.isEmpty)
        let allowed = LoggingMiddleware(configuration: .init(level: .none, sink: .null, honoursEnvironmentInRelease: true))
        #expect(allowed.configured(["SLUICE_LOG": "basic"], isReleaseBuild: true, notice: notice)?.configuration.level == .basic)
    }

    @Test func fromEnvironmentReadsEachLevel() {
        let records = Records()
        for (value, level) in [("off", LogLevel.none), ("basic", .basic), ("headers", .headers), ("body", .body), ("BODY", .body)] {
            #expect(LoggingMiddleware.fromEnvironment(["SLUICE_LOG": value], sink: records.sink()).configuration.level == level)
        }
        #expect(LoggingMiddleware.fromEnvironment([:], sink: records.sink()).configuration.level == .none)
        #expect(records.all.isEmpty)
    }

    /// Said once per value and process (issue 41, item 8: a client's build asked twice, and the
    /// user read the warning twice), however often the environment is read.
    @Test func anUnknownValueIsSaidOnceAndLeavesItOff() {
        let records = Records()
        let value = "verbose-\(UInt32.random(in: 0...UInt32.max))"  // no other test warns about it first
        let middleware = LoggingMiddleware.fromEnvironment(["SLUICE_LOG": value], sink: records.sink())
        #expect(middleware.configuration.level == .none)
        _ = LoggingMiddleware.fromEnvironment(["SLUICE_LOG": value], sink: records.sink())
        _ = LoggingMiddleware(level: .basic, sink: records.sink()).configured(by: ["SLUICE_LOG": value])
        #expect(records.all == ["sluice: SLUICE_LOG=\(value) is not one of off, basic, headers, body; logging stays off"])
    }

    @Test func theBuilderAppliesItWithoutACodeChange() async throws {
        let url = URL(string: "https://example.com/ping")!
        func client(_ environment: [String: String], _ records: Records) -> Client {
            var builder = Client.Builder(transport: MockTransport { _, _ in .status(.ok, body: "pong") })
            builder.environment = environment
            builder.add(LoggingMiddleware(configuration: .init(level: .basic, sink: records.sink(), now: steppingClock())))
            return builder.build()
        }
        let unset = Records(), off = Records(), headers = Records()
        _ = try await client([:], unset).send(HTTPRequest(url: url))
        _ = try await client(["SLUICE_LOG": "off"], off).send(HTTPRequest(url: url))
        let raised = client(["SLUICE_LOG": "headers"], headers)
        _ = try await raised.send(HTTPRequest(url: url, headers: ["Accept": "text/plain"]))
        #expect(unset.all == ["GET https://example.com/ping -> 200 OK, 4 B, 35 ms, network"])
        #expect(off.all.isEmpty)
        // Left out (costs nothing): only the client's own redirect follower remains.
        #expect(client(["SLUICE_LOG": "off"], off).pipeline.middlewares.map { "\(type(of: $0))" } == ["RedirectMiddleware"])
        #expect(headers.all.first?.hasSuffix("\n> Accept: text/plain") == true)
    }
}

@Suite("Secrets and control characters in errors and log lines", .timeLimit(.minutes(2)))
struct SecretsInErrorsTests {
    let server: MockWebServer
    init() throws { server = try MockWebServer() }

    /// With a transport that records the head it wrote, the headers level logs that head: the
    /// request line, Host with its port, the transport's User-Agent; secrets still hidden.
    @Test func theHeadAsSentIsLoggedWhenTheTransportRecordsIt() async throws {
        server.enqueue(.init(status: 200, body: "ok"), .init(status: 200, body: "ok"))
        var configuration = CurlTransport.Configuration()
        configuration.recordsRequestHeads = true
        let transport = CurlTransport(configuration: configuration)
        let port = try #require(server.url("/").port)
        for format in [LogFormat.text, .jsonLines] {
            let records = Records()
            let pipeline = Pipeline(
                middlewares: [LoggingMiddleware(level: .headers, sink: records.sink(), format: format)],
                transport: transport)
            var request = HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/x?token=tok-S1&page=2")))
            try request.headers.set(name: "Authorization", value: "Bearer bearer-S4")
            _ = try await pipeline.send(request)
            let line = try #require(records.all.first)
            #expect(!line.contains("tok-S1") && !line.contains("bearer-S4"))
            if format == .text {
                #expect(line.contains("\n> GET /x?token=<redacted>&page=2 HTTP/1.1\n> Host: 127.0.0.1:\(port)\n> Accept: */*\n> User-Agent: Sluice/"))
                #expect(line.contains("\n> Authorization: <redacted>"))
            } else {
                let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(json["requestLine"] as? String == "GET /x?token=<redacted>&page=2 HTTP/1.1")
                let fields = try #require(json["requestHeaders"] as? [[String]])
                #expect(fields.contains(["Host", "127.0.0.1:\(port)"]))
                #expect(fields.contains(["Authorization", "<redacted>"]))
            }
        }
    }

    @Test func aTimedOutRequestWithSecretsLogsAndThrowsNoneOfThem() async throws {
        server.enqueue(.init(status: 200, body: "late").with(headersDelay: .seconds(120)))
        var configuration = CurlTransport.Configuration()
        configuration.requestTimeout = .milliseconds(300)
        let records = Records()
        let pipeline = Pipeline(
            middlewares: [LoggingMiddleware(level: .headers, sink: records.sink())], transport: CurlTransport(configuration: configuration))
        let port = try #require(server.url("/").port)
        let url = try #require(URL(string: "http://ann:hunter2-pw@127.0.0.1:\(port)/x?token=tok-S1&password=pw-S2&api_key=ak-S3&page=2"))
        var request = HTTPRequest(url: url)
        try request.headers.set(name: "Authorization", value: "Bearer bearer-S4")
        do {
            _ = try await pipeline.send(request)
            Issue.record("a 120 s answer arrived within a 300 ms timeout")
        } catch let error as SluiceError {
            #expect(error.code == .timedOut)
            #expect(
                error.message.hasPrefix("GET http://ann:<redacted>@127.0.0.1:\(port)/x?token=<redacted>&password=<redacted>&api_key=<redacted>&page=2: "),
                "\(error.message)")
            let shown = [error.message, error.description, error.localizedDescription] + records.all
            #expect(records.all.count == 1)
            for secret in ["hunter2-pw", "tok-S1", "pw-S2", "ak-S3", "bearer-S4"] {
                for text in shown { #expect(!text.contains(secret), "\(secret) in \(text)") }
            }
        }
    }

    @Test func aReasonPhraseWithEscapeSequencesIsLoggedEscaped() async throws {
        server.enqueue(.init(status: 200, reason: "OK\u{1B}]0;owned\u{07}", body: Data("fine".utf8)))
        let records = Records()
        let pipeline = Pipeline(middlewares: [LoggingMiddleware(level: .basic, sink: records.sink())], transport: CurlTransport())
        let response = try await pipeline.send(HTTPRequest(url: server.url("/reason")))
        #expect(response.status.reasonPhrase == "OK\u{1B}]0;owned\u{07}")  // the value is what the server sent
        let line = try #require(records.all.first)
        #expect(line.contains(#" -> 200 OK\u{1B}]0;owned\u{07}, "#), "\(line)")
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }

    /// Issue 27, item 8: a JSON line read on a terminal cannot drive it either: DEL, C1 and
    /// bidirectional controls, which RFC 8259 lets stand raw in a string, are written as escapes.
    @Test func aJSONLineEscapesWhatATerminalWouldActOn() async throws {
        server.enqueue(.init(status: 200, headers: [("X-Note", "OK\u{9B}2J\u{202E}")], body: Data("fine".utf8)))
        let records = Records()
        let pipeline = Pipeline(middlewares: [LoggingMiddleware(level: .headers, sink: records.sink(), format: .jsonLines)], transport: CurlTransport())
        _ = try await pipeline.send(HTTPRequest(url: server.url("/json-line")))
        let line = try #require(records.all.first)
        #expect(line.contains(#"OK\u009b2J\u202e"#), "\(line)")
        #expect(!line.unicodeScalars.contains { TerminalText.isUnsafe($0) })
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        let fields = parsed?["responseHeaders"]
        #expect("\(fields ?? "")".contains("OK\u{9B}2J\u{202E}"), "\(line)")
    }

    @Test func bodyTextWithTerminalSequencesIsLoggedEscaped() async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/plain")], body: "line one\r\u{1B}[2Jline two\n"))
        let records = Records()
        let pipeline = Pipeline(middlewares: [LoggingMiddleware(level: .body, sink: records.sink())], transport: CurlTransport())
        _ = try await pipeline.send(HTTPRequest(url: server.url("/body")))
        let record = try #require(records.all.first)
        #expect(record.contains(#"line one\r\u{1B}[2Jline two"#), "\(record)")
        #expect(!record.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D })
    }
}
