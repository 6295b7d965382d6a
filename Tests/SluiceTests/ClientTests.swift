import Foundation
import Sluice
import SluiceTesting
import Testing

struct User: Codable, Equatable {
    let id: Int
    let name: String
}

/// Stand-ins for the shipped middleware: one distinct type per default position.
protocol Role: Sendable {
    static var position: MiddlewarePosition { get }
    static var tag: String { get }
}

struct Fake<R: Role>: Middleware {
    static var defaultPosition: MiddlewarePosition { R.position }
    var tag = R.tag
    func intercept(_ r: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await mark(r, tag, context, next)
    }
}

enum HUDRole: Role { static let position = MiddlewarePosition.hud, tag = "hud" }
enum LoggingRole: Role { static let position = MiddlewarePosition.logging, tag = "logging" }
enum HeadersRole: Role { static let position = MiddlewarePosition.headers, tag = "headers" }
enum URLEncodingRole: Role { static let position = MiddlewarePosition.urlEncoding, tag = "urlEncoding" }
enum CacheRole: Role { static let position = MiddlewarePosition.cache, tag = "cache" }
enum RetryRole: Role { static let position = MiddlewarePosition.retry, tag = "retry" }
enum ReachabilityRole: Role { static let position = MiddlewarePosition.reachability, tag = "reachability" }
enum GzipRole: Role { static let position = MiddlewarePosition.gzip, tag = "gzip" }
enum SigningRole: Role { static let position = MiddlewarePosition.signing, tag = "signing" }

typealias FakeHUD = Fake<HUDRole>
typealias FakeLogging = Fake<LoggingRole>
typealias FakeHeaders = Fake<HeadersRole>
typealias FakeURLEncoding = Fake<URLEncodingRole>
typealias FakeCache = Fake<CacheRole>
typealias FakeRetry = Fake<RetryRole>
typealias FakeReachability = Fake<ReachabilityRole>
typealias FakeGzip = Fake<GzipRole>
typealias FakeSigning = Fake<SigningRole>

/// An in-house middleware with no declared position.
struct InHouse: Middleware {
    var tag = "inHouse"
    func intercept(_ r: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await mark(r, tag, context, next)
    }
}

/// Appends `tag` to the request's `X-Order` header.
func mark(_ request: HTTPRequest, _ tag: String, _ context: RequestContext, _ next: MiddlewareNext) async throws -> HTTPResponse {
    var request = request
    try request.headers.append(name: "X-Order", value: tag)
    return try await next(request, context)
}

@Suite("Client")
struct ClientTests {
    let base = URL(string: "https://api.example.com/v1")!

    func client(_ transport: MockTransport, base: URL? = URL(string: "https://api.example.com/v1")!) -> Client {
        Client(transport: transport, configuration: .init(baseURL: base))
    }

    /// A relative `HTTPRequest` sent through a client is joined to its base URL (the only base
    /// URL there is); with no base URL it fails before anything is sent, saying why.
    @Test func aRelativeRequestIsJoinedToTheBaseOrRefusedWithoutOne() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        _ = try await client(transport).send(HTTPRequest(url: URL(string: "users?page=2")!))
        #expect(transport.requests.first?.request.url.absoluteString == "https://api.example.com/v1/users?page=2")
        let bare = MockTransport(replies: [.status(.ok)])
        await #expect {
            _ = try await client(bare, base: nil).send(HTTPRequest(url: URL(string: "users")!))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidURL && error?.message == #""users" is not an absolute URL and the client has no base URL"#
        }
        #expect(bare.requests.isEmpty)
    }

    @Test func getWithoutBaseURLThrowsBeforeSending() async {
        let transport = MockTransport(replies: [.status(.ok)])
        await #expect(throws: SluiceError.self) { try await client(transport, base: nil).get("users") }
        #expect(transport.requests.isEmpty)
    }

    @Test func getSendsToTheJoinedURL() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        _ = try await client(transport).get("users/42", headers: ["Accept": "application/json"])
        let sent = try #require(transport.requests.first?.request)
        #expect(sent.method == .get)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/users/42")
        #expect(sent.headers["accept"] == "application/json")
    }

    @Test func verbsUseTheirMethodsAndBodies() async throws {
        let transport = MockTransport(configuration: .default) { _, _ in .status(.ok) }
        let c = client(transport)
        _ = try await c.post("a", body: .bytes(Data("p".utf8)))
        _ = try await c.put("a", body: .bytes(Data("u".utf8)))
        _ = try await c.patch("a", body: .bytes(Data("x".utf8)))
        _ = try await c.delete("a")
        #expect(transport.requests.map(\.request.method) == [.post, .put, .patch, .delete])
        #expect(transport.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["p", "u", "x", ""])
    }

    @Test func postJSONEncodesAndSetsContentType() async throws {
        let transport = MockTransport(replies: [.status(.created)])
        _ = try await client(transport).post("users", json: User(id: 1, name: "Ada"))
        let received = try #require(transport.requests.first)
        #expect(received.request.headers["Content-Type"] == "application/json")
        #expect(try JSONDecoder().decode(User.self, from: received.body) == User(id: 1, name: "Ada"))
    }

    @Test func unencodableJSONIsAnInvalidBodyAndNothingIsSent() async {
        struct Reading: Encodable { let value: Double }
        let transport = MockTransport(replies: [.status(.ok)])
        await #expect {
            try await client(transport).post("readings", json: Reading(value: .nan))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody && error?.stage == .client
                && error?.message.hasPrefix("cannot encode Reading as JSON: ") == true
                && error?.underlying is EncodingError
        }
        #expect(transport.requests.isEmpty)
    }

    // MARK: Decoding

    @Test func decodesJSON() async throws {
        let transport = MockTransport(replies: [.json(#"{"id":42,"name":"Ada"}"#)])
        #expect(try await client(transport).get("users/42", as: User.self) == User(id: 42, name: "Ada"))
    }

    @Test func badJSONNamesTheTypeAndShowsTheBody() throws {
        let c = client(MockTransport(replies: []))
        let response = HTTPResponse(status: .ok, body: Data("<html>oops</html>".utf8))
        do {
            _ = try c.decode(User.self, from: response)
            Issue.record("decoded HTML as JSON")
        } catch {
            #expect(error.code == .decodingFailed)
            #expect(error.stage == .client)
            #expect(error.message.hasPrefix("cannot decode User from the response body: not valid JSON at the top level"))
            #expect(error.message.hasSuffix(#"body: "<html>oops</html>""#))
            #expect(error.underlying is DecodingError)
            #expect(error.response?.text == "<html>oops</html>")
        }
    }

    @Test func missingKeyIsNamedWithItsPath() throws {
        struct Wrapper: Decodable { let user: User }
        let c = client(MockTransport(replies: []))
        let response = HTTPResponse(status: .ok, body: Data(#"{"user":{"id":1}}"#.utf8))
        #expect {
            try c.decode(Wrapper.self, from: response)
        } throws: { error in
            (error as? SluiceError)?.message
                == #"cannot decode Wrapper from the response body: key "name" not found at .user; body: "{\"user\":{\"id\":1}}""#
        }
    }

    @Test func longBodiesAreCutInTheMessage() throws {
        let c = client(MockTransport(replies: []))
        let response = HTTPResponse(status: .ok, body: Data(repeating: UInt8(ascii: "x"), count: 5000))
        #expect {
            try c.decode(User.self, from: response)
        } throws: { error in
            (error as? SluiceError)?.message.hasSuffix("… (5000 bytes in all)") == true
        }
    }

    @Test func typedCallsRefuseUnacceptableStatus() async throws {
        let transport = MockTransport(replies: [.json(#"{"error":"no such user"}"#, status: .notFound)])
        do {
            _ = try await client(transport).get("users/9", as: User.self)
            Issue.record("decoded a 404")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableStatus)
            #expect(
                error.message
                    == #"GET https://api.example.com/v1/users/9 answered 404 Not Found; accepted: 200..<300; body: "{\"error\":\"no such user\"}""#)
            #expect(error.response?.status == .notFound)
        }
    }

    // MARK: Per-call middleware and context

    @Test func extraMiddlewareRunsOutsideTheClientsOwn() async throws {
        let transport = MockTransport(replies: [.status(.ok), .status(.ok)])
        let c = Client(transport: transport, middlewares: [FakeHeaders(), FakeSigning()])
        _ = try await c.send(HTTPRequest(url: base), with: [InHouse()])
        _ = try await c.send(HTTPRequest(url: base))
        #expect(
            transport.requests.map { $0.request.headers.values(for: "X-Order") }
                == [["inHouse", "headers", "signing"], ["headers", "signing"]])
    }

    /// Counts the chains it is attached to.
    struct Attached: ChainAttachable {
        let count = Locked(0)
        func attach(to chain: ChainHandle) { count.withLock { $0 += 1 } }
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            try await next(request, context)
        }
    }

    /// Keeps the chain it is attached to, to send through it later (as an outbox replays).
    struct Replaying: ChainAttachable {
        let chain = Locked<ChainHandle?>(nil)
        func attach(to chain: ChainHandle) { self.chain.withLock { $0 = chain } }
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            try await next(request, context)
        }
    }

    /// What a middleware sends through its chain (an outbox's replay) is under the client's
    /// privacy policy too: every stage, and every message, hides what the client names.
    @Test func aReplayThroughTheChainIsUnderTheClientsPrivacyPolicy() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        let replaying = Replaying()
        let client = Client(
            transport: transport, middlewares: [replaying], configuration: .init(redaction: Redaction.default.adding(parameters: ["pin"])))
        let handle = try #require(replaying.chain.withLock { $0 })
        _ = try await handle.send(HTTPRequest(url: URL(string: "https://api.example.com/pay?pin=1234&n=1")!))
        #expect(transport.requests.first?.request.description == "GET https://api.example.com/pay?pin=<redacted>&n=1")
        withExtendedLifetime(client) {}
    }

    @Test func extraMiddlewareDoNotRelinkOrReattachTheClientsChain() async throws {
        let transport = MockTransport(replies: Array(repeating: .status(.ok), count: 4))
        let attached = Attached()
        let c = Client(transport: transport, middlewares: [attached, FakeHeaders()], configuration: .init(isTracing: true))
        #expect(attached.count.withLock { $0 } == 1)
        let extra = Attached()
        for _ in 0..<3 { _ = try await c.send(HTTPRequest(url: base), with: [InHouse(), extra]) }
        #expect(attached.count.withLock { $0 } == 1)  // the client's own: once, when the client was made
        #expect(extra.count.withLock { $0 } == 3)  // an extra: once per call it is in
        // A traced call with extras: each stage's span, outermost first, each run once.
        let traced = try await c.send(HTTPRequest(url: base), with: [InHouse()])
        let trace = try #require(traced.trace)
        #expect(
            trace.spans.map { "\($0.stage)" } == [
                "middleware InHouse", "middleware RedirectMiddleware", "middleware Attached", "middleware Fake<HeadersRole>",
                "transport MockTransport",
            ])
        #expect(trace.spans.map(\.calls) == [1, 1, 1, 1, 1])
    }

    @Test func clientTimeoutAndTracingReachTheContext() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        // A deadline no loaded machine reaches: the call itself must not time out.
        let c = Client(transport: transport, middlewares: [InHouse()], configuration: .init(timeout: .seconds(500), isTracing: true))
        let before = ContinuousClock.now
        let response = try await c.send(HTTPRequest(url: base))
        let after = ContinuousClock.now
        let context = try #require(transport.requests.first?.context)
        #expect(context.isTracing)
        // The deadline is the timeout from when the call was made, however slow the machine.
        let deadline = try #require(context.deadline)
        #expect(deadline >= before + .seconds(500) && deadline <= after + .seconds(500))
        // The client's own redirect follower, the in-house middleware, the transport.
        #expect(
            response.trace?.spans.map(\.stage.description) == ["middleware RedirectMiddleware", "middleware InHouse", "transport MockTransport"]
        )
    }

    // MARK: Builder

    @Test func builderMakesTheDefaultOrderWhateverTheCallOrder() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        var builder = Client.Builder(transport: transport)
        let shuffled: [any Middleware] = [
            FakeSigning(), InHouse(), FakeCache(), FakeHUD(), FakeGzip(), FakeHeaders(), FakeReachability(),
            FakeLogging(), FakeRetry(), FakeURLEncoding(),
        ]
        for middleware in shuffled { builder.add(middleware) }
        _ = try await builder.build().send(HTTPRequest(url: base))
        #expect(
            transport.requests.first?.request.headers.values(for: "X-Order") == [
                "hud", "logging", "headers", "urlEncoding", "inHouse", "cache", "retry", "reachability", "gzip", "signing",
            ])
        // The builder's own redirect follower sits after in-house middleware and before the cache,
        // so each hop is a request of its own for the cache, retry and signing.
        #expect(
            builder.entries.map { "\(type(of: $0.middleware))" } == [
                "Fake<HUDRole>", "Fake<LoggingRole>", "Fake<HeadersRole>", "Fake<URLEncodingRole>", "InHouse", "RedirectMiddleware",
                "Fake<CacheRole>", "Fake<RetryRole>", "Fake<ReachabilityRole>", "Fake<GzipRole>", "Fake<SigningRole>",
            ])
    }

    @Test func toggleKeepsThePlaceAndRebuiltLeavesTheOriginalAlone() async throws {
        let transport = MockTransport(configuration: .default) { _, _ in .status(.ok) }
        var builder = Client.Builder(transport: transport)
        builder.add(FakeRetry())
        builder.add(FakeLogging())
        builder.add(FakeHeaders())
        let withLogging = builder.build()
        let quiet = withLogging.rebuilt { #expect($0.setEnabled(false, for: FakeLogging.self) == 1) }
        let loudAgain = quiet.rebuilt { $0.setEnabled(true, for: FakeLogging.self) }
        #expect(!quiet.builder.isEnabled(FakeLogging.self) && quiet.builder.contains(FakeLogging.self))

        for client in [withLogging, quiet, loudAgain] { _ = try await client.send(HTTPRequest(url: base)) }
        #expect(
            transport.requests.map { $0.request.headers.values(for: "X-Order") } == [
                ["logging", "headers", "retry"], ["headers", "retry"], ["logging", "headers", "retry"],
            ])
    }

    @Test func removeReplaceAndRelativeAdds() async throws {
        let transport = MockTransport(configuration: .default) { _, _ in .status(.ok) }
        var builder = Client.Builder(transport: transport)
        builder.add(FakeLogging())
        builder.add(FakeSigning())
        let found = builder.insert(InHouse(tag: "beforeSigning"), before: FakeSigning.self)
        builder.add(InHouse(tag: "afterLogging"), at: .after(.logging))
        // No such middleware: it goes to its own default position, and the result says so.
        let missing = builder.insert(InHouse(tag: "nowhere"), before: FakeRetry.self)
        #expect(found && !missing)
        let removed = builder.remove(InHouse.self)
        #expect(removed == 3)
        builder.insert(InHouse(tag: "beforeSigning"), before: FakeSigning.self)
        builder.add(InHouse(tag: "afterLogging"), at: .after(.logging))
        let replaced = builder.replace(FakeLogging.self, with: FakeLogging(tag: "logging2"))
        #expect(replaced == 1)
        _ = try await builder.build().send(HTTPRequest(url: base))
        #expect(builder.remove(InHouse.self) == 2)
        #expect(builder.remove(InHouse.self) == 0)
        _ = try await builder.build().send(HTTPRequest(url: base))
        #expect(
            transport.requests.map { $0.request.headers.values(for: "X-Order") } == [
                ["logging2", "afterLogging", "beforeSigning", "signing"], ["logging2", "signing"],
            ])
    }

    @Test func explicitPositionOverridesTheDefault() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        var builder = Client.Builder(transport: transport)
        builder.add(FakeSigning())
        builder.add(FakeLogging(tag: "wire"), at: .network)
        builder.add(FakeLogging())
        _ = try await builder.build().send(HTTPRequest(url: base))
        #expect(transport.requests.first?.request.headers.values(for: "X-Order") == ["logging", "signing", "wire"])
    }

    // MARK: Verbs

    struct NewNote: Codable, Sendable, Equatable {
        let noteTitle: String
    }

    /// A client whose encoder and decoder use snake case, over a server that echoes the method,
    /// the URL and the body it received as JSON.
    func snakeCaseClient() -> (Client, MockTransport) {
        let transport = MockTransport { request, _ in
            let body = String(decoding: request.body.inMemory ?? Data(), as: UTF8.self)
            let echo = #"{"note_title":"\#(request.method) \#(request.url.absoluteString) \#(body.replacingOccurrences(of: "\"", with: "'"))"}"#
            return .json(echo)
        }
        let configuration = Client.Configuration(baseURL: URL(string: "https://api.example.com/v1"))
        configuration.encoder.keyEncodingStrategy = .convertToSnakeCase
        configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (Client(transport: transport, configuration: configuration), transport)
    }

    @Test func eachVerbEncodesWithTheClientsEncoderAndDecodesWithItsDecoder() async throws {
        let (client, _) = snakeCaseClient()
        let note = NewNote(noteTitle: "hi")
        let base = "https://api.example.com/v1"
        #expect(try await client.get("notes", query: ["page": 2], as: NewNote.self).noteTitle == "GET \(base)/notes?page=2 ")
        #expect(try await client.post("notes", json: note, as: NewNote.self).noteTitle == "POST \(base)/notes {'note_title':'hi'}")
        #expect(try await client.put("notes/1", json: note, as: NewNote.self).noteTitle == "PUT \(base)/notes/1 {'note_title':'hi'}")
        #expect(try await client.patch("notes/1", json: note, as: NewNote.self).noteTitle == "PATCH \(base)/notes/1 {'note_title':'hi'}")
        #expect(try await client.delete("notes/1", as: NewNote.self).noteTitle == "DELETE \(base)/notes/1 ")
        #expect(try await client.delete("notes/1", json: note, as: NewNote.self).noteTitle == "DELETE \(base)/notes/1 {'note_title':'hi'}")
        // The untyped verbs send the same.
        #expect(try await client.get("notes", query: ["q": "a b"]).text == #"{"note_title":"GET \#(base)/notes?q=a%20b "}"#)
        #expect(try await client.post("notes", json: note).request?.headers["Content-Type"] == "application/json")
    }

    @Test func aBodySetWithSetJSONBodyIsEncodedByTheClientsEncoder() async throws {
        let (client, transport) = snakeCaseClient()
        var request = try client.makeRequest(.post, "notes")
        try request.setJSONBody(NewNote(noteTitle: "hi"))
        #expect(request.body.inMemory == Data(#"{"noteTitle":"hi"}"#.utf8))  // a default encoder, until a client sends it
        _ = try await client.send(request)
        #expect(transport.requests.last?.body == Data(#"{"note_title":"hi"}"#.utf8))
        // With an encoder of its own, the body is left as that encoder wrote it.
        var own = try client.makeRequest(.post, "notes")
        try own.setJSONBody(NewNote(noteTitle: "hi"), encoder: JSONEncoder())
        _ = try await client.send(own)
        #expect(transport.requests.last?.body == Data(#"{"noteTitle":"hi"}"#.utf8))
    }
}

extension HTTPBody {
    /// The bytes of a memory body.
    fileprivate var inMemory: Data? {
        if case .bytes(let data) = self { data } else { nil }
    }
}
