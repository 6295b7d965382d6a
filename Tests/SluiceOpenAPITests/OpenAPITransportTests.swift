#if OpenAPI
    import Foundation
    import HTTPTypes
    import OpenAPIRuntime
    import Sluice
    import SluiceCurl
    import SluiceLogging
    import SluiceRetry
    import SluiceOpenAPI
    import SluiceTestSupport
    import SluiceTesting
    import Testing

    @Suite struct OpenAPITransportTests {
        /// Keeps the request each call sent, as the chain below it saw it.
        final class Recorder: Middleware, Sendable {
            let requests = Locked<[Sluice.HTTPRequest]>([])
            func intercept(_ request: Sluice.HTTPRequest, context: RequestContext, next: Next) async throws -> Sluice.HTTPResponse {
                requests.withLock { $0.append(request) }
                return try await next(request, context)
            }
        }

        /// httpbin's echo: the body read whole and parsed.
        func json(_ body: OpenAPIRuntime.HTTPBody?) async throws -> [String: Any]? {
            try JSONSerialization.jsonObject(with: try await Data(collecting: try #require(body), upTo: 1 << 20)) as? [String: Any]
        }

        func transport(_ recorder: Recorder = Recorder(), baseURL: URL? = nil) -> OpenAPITransport {
            OpenAPITransport(client: Sluice.Client(transport: CurlTransport(), middlewares: [recorder], configuration: .init(baseURL: baseURL)))
        }

        @Test(arguments: [
            ("https://api.example.com/v2", nil, "/users/42?expand=team", "https://api.example.com/v2/users/42?expand=team"),
            ("https://api.example.com/v2/", nil, "/users", "https://api.example.com/v2/users"),
            ("https://api.example.com", nil, "/a%2Fb", "https://api.example.com/a%2Fb"),
            ("/v2", "https://api.example.com/", "/users", "https://api.example.com/v2/users"),
            ("/", "https://api.example.com/base", "/users", "https://api.example.com/base/users"),
            ("https://other.example.com", "https://api.example.com", "/x", "https://other.example.com/x"),
        ])
        func theServerURLAndTheOperationPathMakeTheURL(server: String, clientBase: String?, path: String, expected: String) throws {
            let url = try OpenAPITransport.url(path: path, baseURL: URL(string: server)!, clientBaseURL: clientBase.flatMap(URL.init(string:)))
            #expect(url.absoluteString == expected)
        }

        /// Issue 41, item 3: a path parameter stays inside its operation. A `.` or `..` segment,
        /// however it is encoded, is refused before curl (or a server) could resolve it; an
        /// encoded slash stays one segment, and a dot inside a segment is a dot.
        @Test(arguments: ["/users/..", "/users/../admin", "/users/.", "/users/%2e%2e/admin", "/users/%2E%2e", "/users/.%2E/x?q=1", "/users/%2e"])
        func aDotSegmentIsRefused(path: String) {
            let error = #expect(throws: SluiceError.self) {
                try OpenAPITransport.url(path: path, baseURL: URL(string: "https://api.example.com/v2")!, clientBaseURL: nil)
            }
            #expect(error?.code == .invalidURL)
            #expect(error?.message.hasSuffix("which would leave the operation's path: a path parameter may not be . or ..") == true)
        }

        @Test func encodedSlashesAndDotsInsideASegmentStay() throws {
            for (path, expected) in [
                ("/users/a%2F..%2Fb", "https://api.example.com/v2/users/a%2F..%2Fb"), ("/users/v1.2", "https://api.example.com/v2/users/v1.2"),
                ("/users/...", "https://api.example.com/v2/users/..."), ("/files/.hidden", "https://api.example.com/v2/files/.hidden"),
            ] {
                #expect(
                    try OpenAPITransport.url(path: path, baseURL: URL(string: "https://api.example.com/v2")!, clientBaseURL: nil).absoluteString == expected)
            }
        }

        @Test func aRelativeServerURLNeedsAClientBaseURL() {
            let error = #expect(throws: SluiceError.self) {
                try OpenAPITransport.url(path: "/users", baseURL: URL(string: "/v2")!, clientBaseURL: nil)
            }
            #expect(error?.code == .invalidURL)
            #expect(error?.message == #""/v2" is not an absolute URL and the client has no base URL"#)
        }

        @Test func aPathThatIsNotAbsoluteCannotFollowTheServerURL() {
            let error = #expect(throws: SluiceError.self) {
                try OpenAPITransport.url(path: "users", baseURL: URL(string: "https://ann:pw@api.example.com")!, clientBaseURL: nil)
            }
            #expect(error?.code == .invalidURL)
            #expect(error?.message == #"the operation's path "users" cannot follow https://ann:<redacted>@api.example.com"#)
        }

        @Test func aGetReachesHttpbinWithItsFieldsAndNamesItsOperation() async throws {
            let recorder = Recorder()
            var head = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/get?q=sluice")
            head.headerFields[HTTPField.Name("X-Team")!] = "api"
            let (response, body) = try await transport(recorder).send(
                head, body: nil, baseURL: try InteropServers.httpbin(), operationID: "getAnything")
            #expect(response.status == .ok)
            let echo = try await json(body)
            #expect((echo?["args"] as? [String: String])?["q"] == "sluice")
            #expect((echo?["headers"] as? [String: String])?["X-Team"] == "api")
            #expect(recorder.requests.withLock { $0.map(\.operationName) } == ["getAnything"])
        }

        @Test func aRequestBodyStreamsWithItsLengthAndARepeatableOneCanBeSentAgain() async throws {
            let chunks = ["{\"name\":", "\"Ada\",", "\"team\":\"api\"}"]
            func single() -> OpenAPIRuntime.HTTPBody {
                OpenAPIRuntime.HTTPBody(
                    AsyncStream { continuation in
                        for chunk in chunks { continuation.yield(ArraySlice(chunk.utf8)) }
                        continuation.finish()
                    }, length: .known(Int64(chunks.joined().utf8.count)))
            }
            let sent = OpenAPITransport.body(of: single())
            #expect(!sent.isReplayable)
            #expect(sent.length == Int64(chunks.joined().utf8.count))
            let repeatable = OpenAPITransport.body(of: OpenAPIRuntime.HTTPBody("again"))
            #expect(repeatable.isReplayable)
            #expect(try await repeatable.collect() == Data("again".utf8))
            #expect(try await repeatable.collect() == Data("again".utf8))  // as retry sends it again

            var head = HTTPTypes.HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/post")
            head.headerFields[.contentType] = "application/json"
            let (response, body) = try await transport().send(head, body: single(), baseURL: try InteropServers.httpbin(), operationID: "create")
            #expect(response.status == .ok)
            let echo = try await json(body)
            #expect(echo?["data"] as? String == chunks.joined())
            #expect((echo?["headers"] as? [String: String])?["Content-Length"] == String(chunks.joined().utf8.count))
        }

        @Test func aResponseBodyArrivesWithTheLengthTheServerGave() async throws {
            let head = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/bytes/70000")
            let (response, answer) = try await transport().send(head, body: nil, baseURL: try InteropServers.httpbin(), operationID: "bytes")
            #expect(response.headerFields[.contentLength] == "70000")
            let body = try #require(answer)
            #expect(body.length == .known(70_000))
            var total = 0
            for try await chunk in body { total += chunk.count }
            #expect(total == 70_000)

            let streamed = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/stream-bytes/50000?chunk_size=1000")
            let (_, chunked) = try await transport().send(streamed, body: nil, baseURL: try InteropServers.httpbin(), operationID: "streamBytes")
            #expect(chunked?.length == .unknown)
            #expect(try await Data(collecting: try #require(chunked), upTo: 1 << 20).count == 50_000)
        }

        @Test func aHeadOrANoContentAnswerHasNoBody() async throws {
            let transport = transport()
            let head = HTTPTypes.HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/bytes/10")
            #expect(try await transport.send(head, body: nil, baseURL: try InteropServers.httpbin(), operationID: "h").1 == nil)
            let noContent = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/status/204")
            let (response, body) = try await transport.send(noContent, body: nil, baseURL: try InteropServers.httpbin(), operationID: "n")
            #expect(response.status.code == 204)
            #expect(body == nil)
        }

        @Test func theChainsErrorIsThrownWithItsCode() async throws {
            let refused = Loopback.RefusedPort()  // held to the end: no parallel test's server can take it
            defer { withExtendedLifetime(refused) {} }
            let head = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x")
            do {
                _ = try await transport().send(head, body: nil, baseURL: refused.url(""), operationID: "down")
                Issue.record("a closed port answered")
            } catch let error as SluiceError {
                #expect(error.code == .cannotConnect)
            }
        }
    }

    /// Issue 41, item 8: a generated call is logged as it ended: a successful call with no body
    /// is never `cancelled`, and one whose body the generated code ignores (an undocumented 503
    /// after retries) keeps its status.
    @Suite struct OpenAPILoggingTests {
        final class Lines: Sendable {
            let all = Locked<[String]>([])
        }

        @Test func eachCallIsLoggedWithItsStatus() async throws {
            let server = try MockWebServer()
            let lines = Lines()
            let logging = LoggingMiddleware(configuration: .init(level: .basic, sink: .closure { line in lines.all.withLock { $0.append(line) } }))
            var builder = Sluice.Client.Builder(transport: CurlTransport())
            builder.add(logging)
            builder.add(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(maximumAttempts: 2, baseDelay: .zero))))
            let transport = OpenAPITransport(client: builder.build())
            func call(_ path: String, method: HTTPTypes.HTTPRequest.Method = .get) async throws -> OpenAPIRuntime.HTTPBody? {
                let head = HTTPTypes.HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
                return try await transport.send(head, body: nil, baseURL: server.url(""), operationID: String(path.dropFirst())).1
            }
            server.enqueue(.init(status: 204, body: Data()))
            #expect(try await call("/deleted", method: .delete) == nil)
            server.enqueue(.init(status: 201, headers: [("Content-Length", "0")], body: Data()))
            _ = try await call("/created", method: .post)  // generated code that never reads it
            server.enqueue(.init(status: 503, headers: [("Content-Type", "text/plain")], body: Data("busy".utf8)))
            server.enqueue(.init(status: 503, headers: [("Content-Type", "text/plain")], body: Data("busy".utf8)))
            _ = try await call("/busy")  // undocumented: its body is ignored
            try await Task.sleep(for: .milliseconds(100))  // a let-go stream is logged as it is freed
            let logged = lines.all.withLock { $0 }
            #expect(logged.count == 3, "\(logged)")
            #expect(logged.contains { $0.contains("DELETE ") && $0.contains("(deleted) -> 204 No Content, 0 B,") && !$0.contains("let go") }, "\(logged)")
            #expect(logged.contains { $0.contains("(created) -> 201 Created, 0 B,") && !$0.contains("let go") }, "\(logged)")
            #expect(logged.contains { $0.contains("(busy) -> 503 Service Unavailable,") && $0.contains("retries 1") }, "\(logged)")
            #expect(!logged.contains { $0.contains("cancelled") }, "\(logged)")
        }
    }

    /// Issue 41, item 2: what a generated client collects (whole, with no limit of its own) is
    /// bounded by the client's `maxResponseBodySize`, with a per-call way out for a caller that
    /// streams.
    @Suite struct OpenAPIAnswerLimitTests {
        let server: MockWebServer
        let body = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })

        init() throws { server = try MockWebServer() }

        func transport(limit: Int = 1 << 20) -> OpenAPITransport {
            OpenAPITransport(client: Sluice.Client(transport: CurlTransport(), configuration: .init(maxResponseBodySize: limit)))
        }

        func send(_ transport: OpenAPITransport, chunked: Bool, type: String = "application/json") async throws -> OpenAPIRuntime.HTTPBody? {
            server.enqueue(.init(status: 200, headers: [("Content-Type", type)], body: body, chunkSize: chunked ? 16 << 10 : nil))
            let head = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/export")
            return try await transport.send(head, body: nil, baseURL: server.url(""), operationID: "export").1
        }

        var expectedMessage: String {
            "the response body of GET \(server.url("/export").absoluteString) is larger than the limit of 1048576 bytes "
                + "(Client.Configuration.maxResponseBodySize)"
        }

        /// A `Content-Length` past the limit: refused before a byte of the body is handed over.
        @Test func aDeclaredLengthPastTheLimitIsRefusedAtOnce() async throws {
            await #expect {
                _ = try await send(transport(), chunked: false)
            } throws: { error in
                (error as? SluiceError)?.code == .bodyTooLarge && (error as? SluiceError)?.message == expectedMessage
            }
        }

        /// No length: the body generated code collects (`upTo: .max`, as its converter does) ends
        /// with `.bodyTooLarge` as the count crosses the limit.
        @Test func anUndeclaredLengthStopsAsTheCountCrossesTheLimit() async throws {
            let answer = try #require(try await send(transport(), chunked: true))
            await #expect {
                _ = try await Data(collecting: answer, upTo: .max)
            } throws: { error in
                (error as? SluiceError)?.code == .bodyTooLarge && (error as? SluiceError)?.message == expectedMessage
            }
            // Read chunk by chunk: no more than the limit passes.
            let again = try #require(try await send(transport(), chunked: true))
            var read = 0
            do {
                for try await chunk in again { read += chunk.count }
                Issue.record("read \(read) bytes past the limit")
            } catch {}
            #expect(read <= 1 << 20)
        }

        /// Issue 53, item 9: a binary answer is the caller's to read (generated code hands it over
        /// as it arrives), so the client's limit does not cut a download short; what generated
        /// code collects whole (JSON, text, a form, an answer of no type) stays bounded.
        @Test(arguments: ["application/octet-stream", "image/png", "multipart/form-data; boundary=x", "application/zip"])
        func aBinaryAnswerIsLeftToItsReader(type: String) async throws {
            let answer = try #require(try await send(transport(), chunked: true, type: type))
            var read = 0
            for try await chunk in answer { read += chunk.count }
            #expect(read == body.count)
            let declared = try #require(try await send(transport(), chunked: false, type: type))
            #expect(try await Data(collecting: declared, upTo: .max) == body)
        }

        @Test func whatGeneratedCodeCollectsStaysBounded() {
            for type in ["application/json", "application/problem+json; charset=utf-8", "text/plain", "TEXT/CSV", "application/x-www-form-urlencoded", ""] {
                #expect(OpenAPITransport.isCollected(contentType: type), "\(type)")
            }
            #expect(OpenAPITransport.isCollected(contentType: nil))
            for type in ["application/octet-stream", "image/png", "multipart/mixed; boundary=b", "application/pdf"] {
                #expect(!OpenAPITransport.isCollected(contentType: type), "\(type)")
            }
        }

        /// `withResponseBodyLimit(nil)` lets the calls in its scope read a body of any size, read
        /// after the scope ends too; a number replaces the client's.
        @Test func aCallerThatStreamsSaysSoForItsCalls() async throws {
            let transport = transport()
            let answer = try await OpenAPITransport.withResponseBodyLimit(nil) { try await send(transport, chunked: false) }
            #expect(try await Data(collecting: try #require(answer), upTo: .max) == body)
            let chunked = try await OpenAPITransport.withResponseBodyLimit(nil) { try await send(transport, chunked: true) }
            #expect(try await Data(collecting: try #require(chunked), upTo: .max) == body)
            await #expect {
                _ = try await OpenAPITransport.withResponseBodyLimit(4_096) { try await send(transport, chunked: false) }
            } throws: { ($0 as? SluiceError)?.message.contains("larger than the limit of 4096 bytes") == true }
            let bigger = try await OpenAPITransport.withResponseBodyLimit(4 << 20) { try await send(transport, chunked: false) }
            #expect(try await Data(collecting: try #require(bigger), upTo: .max).count == body.count)
        }
    }
#endif
