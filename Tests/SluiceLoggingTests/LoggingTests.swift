import Foundation
import Sluice
import SluiceCurl
import SluiceLogging
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

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
        #expect(records.all == ["POST https://api.example.com/login?user=ann&token=<redacted> -> 200 OK, 25 B, 35 ms, 1 attempt, network"])
    }

    @Test func headersAddsBothFieldSectionsRedacted() async throws {
        let records = Records()
        _ = try await MiddlewareHarness(logger(.headers, records), replies: [loginReply]).send(loginRequest())
        #expect(
            records.all == [
                """
                POST https://api.example.com/login?user=ann&token=<redacted> -> 200 OK, 25 B, 35 ms, 1 attempt, network
                > Content-Type: application/json
                > Authorization: <redacted>
                > Accept: application/json
                < Content-Type: application/json
                < Set-Cookie: <redacted>
                """
            ])
    }

    @Test func bodyAddsPrettyJSONRedacted() async throws {
        let records = Records()
        _ = try await MiddlewareHarness(logger(.body, records), replies: [loginReply]).send(loginRequest())
        #expect(
            records.all == [
                """
                POST https://api.example.com/login?user=ann&token=<redacted> -> 200 OK, 25 B, 35 ms, 1 attempt, network
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
                PUT https://example.com/note -> 200 OK, 7 B, 35 ms, 1 attempt, network
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
                POST https://example.com/upload -> 201 Created, 0 B, 35 ms, 1 attempt, network
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
        let records = Records()
        let transport = MockTransport(replies: [.status(.serviceUnavailable), .status(.ok, body: "fine")])
        let policy = DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(1)))
        let pipeline = Pipeline(middlewares: [logger(.basic, records), RetryMiddleware(policy: policy)], transport: transport)
        _ = try await pipeline.send(HTTPRequest(url: URL(string: "https://example.com/flaky")!))
        #expect(records.all == ["GET https://example.com/flaky -> 200 OK, 4 B, 35 ms, 2 attempts, network"])
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
        #expect(object["attempts"] as? Int == 1)
        #expect(object["source"] as? String == "network")
        #expect(
            object["requestHeaders"] as? [[String]] == [
                ["Content-Type", "application/json"], ["Authorization", "<redacted>"], ["Accept", "application/json"],
            ])
        #expect(object["responseHeaders"] as? [[String]] == [["Content-Type", "application/json"], ["Set-Cookie", "<redacted>"]])
        #expect((object["requestBody"] as? String)?.contains(#""password" : "<redacted>""#) == true)
        #expect((object["responseBody"] as? String)?.contains("xyz") == false)
    }
}

@Suite struct RedactionTests {
    @Test(arguments: ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Amz-Security-Token", "authorization", "SET-COOKIE"])
    func eachDefaultHeaderIsHidden(_ name: String) {
        #expect(Redaction.default.value(ofHeader: name, "secret-value") == "<redacted>")
    }

    @Test func otherHeadersAreShown() {
        #expect(Redaction.default.value(ofHeader: "Accept", "text/html") == "text/html")
        #expect(Redaction.default.value(ofHeader: "X-Api-Key", "k") == "k")
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
        "https://e.com/p?signs=1&tokens=2&sig=3&Sign2=4",  // near misses by length and by name
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

@Suite struct EnvironmentToggleTests {
    @Test func fromEnvironmentReadsEachLevel() {
        let records = Records()
        for (value, level) in [("off", LogLevel.none), ("basic", .basic), ("headers", .headers), ("body", .body), ("BODY", .body)] {
            #expect(LoggingMiddleware.fromEnvironment(["SLUICE_LOG": value], sink: records.sink()).configuration.level == level)
        }
        #expect(LoggingMiddleware.fromEnvironment([:], sink: records.sink()).configuration.level == .none)
        #expect(records.all.isEmpty)
    }

    @Test func anUnknownValueIsSaidOnceAndLeavesItOff() {
        let records = Records()
        let middleware = LoggingMiddleware.fromEnvironment(["SLUICE_LOG": "verbose"], sink: records.sink())
        #expect(middleware.configuration.level == .none)
        #expect(records.all == ["sluice: SLUICE_LOG=verbose is not one of off, basic, headers, body; logging stays off"])
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
        #expect(unset.all == ["GET https://example.com/ping -> 200 OK, 4 B, 35 ms, 1 attempt, network"])
        #expect(off.all.isEmpty)
        #expect(client(["SLUICE_LOG": "off"], off).pipeline.middlewares.isEmpty)  // left out: costs nothing
        #expect(headers.all.first?.hasSuffix("\n> Accept: text/plain") == true)
    }
}

@Suite struct SinkTests {
    @Test func aFileSinkAppendsWholeRecordsWithPrivateMode() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-log-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let middleware = LoggingMiddleware(level: .basic, sink: try .file(url))
            let harness = MiddlewareHarness(middleware, replies: [.status(.ok), .status(.noContent)])
            _ = try await harness.send(HTTPRequest(url: URL(string: "https://example.com/a")!))
            _ = try await harness.send(HTTPRequest(url: URL(string: "https://example.com/b")!))
        }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("GET https://example.com/a -> 200 OK, 0 B, "))
        #expect(lines[1].hasPrefix("GET https://example.com/b -> 204 No Content, 0 B, "))
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func anUnopenableFileIsATypedError() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/http.log")
        #expect {
            _ = try LogSink.file(url)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .writeFailed && error?.message == "cannot open log file \(url.path): No such file or directory"
        }
    }
}

@Suite struct CurlCommandTests {
    @Test func redactedByDefault() {
        #expect(
            CurlCommand(loginRequest()).command == """
                curl -X 'POST' 'https://api.example.com/login?user=ann&token=<redacted>' -H 'Content-Type: application/json' \
                -H 'Authorization: <redacted>' -H 'Accept: application/json' --data-binary '{"password":"<redacted>","user":"ann"}'
                """)
    }

    @Test func quotesBinaryFilesStreamsAndEmptyFields() {
        let url = URL(string: "https://example.com/it's")!
        #expect(
            CurlCommand(HTTPRequest(url: url, headers: ["X-Empty": ""])).command
                == #"curl 'https://example.com/it'\''s' -H 'X-Empty;'"#)
        #expect(CurlCommand(HTTPRequest(method: .head, url: url)).command == #"curl --head 'https://example.com/it'\''s'"#)
        #expect(
            CurlCommand(HTTPRequest(method: .post, url: url, body: .bytes(Data([0, 255, 10])))).command
                == #"printf '\000\377\012' | curl -X 'POST' 'https://example.com/it'\''s' --data-binary @-"#)
        #expect(
            CurlCommand(HTTPRequest(method: .put, url: url, body: .file(URL(fileURLWithPath: "/tmp/a b")))).command
                == #"curl -X 'PUT' 'https://example.com/it'\''s' --data-binary '@/tmp/a b'"#)
        let stream = AsyncThrowingStream<Data, any Error> { $0.finish() }
        #expect(
            CurlCommand(HTTPRequest(method: .post, url: url, body: .stream(.oneShot(length: nil, stream)))).command.hasSuffix(
                "  # the request's stream body is not shown: it can be read only once"))
    }

    @Test func theCommandRunsAgainstHttpbin() async throws {
        let base = try InteropServers.value("SLUICE_HTTPBIN_URL")
        let url = URL(string: base + "/anything/it's?q=a%20b&token=t0k")!
        let request = HTTPRequest(
            method: .post, url: url,
            headers: ["Content-Type": "application/octet-stream", "X-Quote": "it's \"quoted\"", "Authorization": "Bearer abc"],
            body: .bytes(Data([0, 1, 2, 39, 255])))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", CurlCommand(request, redaction: .disabled).command + " --silent --show-error"]
        let (data, status) = try await Blocking.output(of: process)
        #expect(status == 0)
        let echo = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(echo["method"] as? String == "POST")
        #expect(echo["args"] as? [String: String] == ["q": "a b", "token": "t0k"])
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["X-Quote"] == "it's \"quoted\"")
        #expect(headers["Authorization"] == "Bearer abc")
        #expect(echo["data"] as? String == "data:application/octet-stream;base64," + Data([0, 1, 2, 39, 255]).base64EncodedString())
    }
}
