import Foundation
import SluiceTesting
import Testing

@testable import Sluice

/// A dictionary literal of fields holds run-time data as often as not: an invalid one never traps,
/// and every way it can reach the wire throws its `.invalidHeader` instead.
@Suite("HTTPFields literals with invalid fields")
struct HTTPFieldsLiteralTests {
    /// A token read from a file, trailing newline and all.
    static let token = "tok-123\n"
    static let expected = #"value of header "Authorization" has LF (0x0A) at byte 14; CR, LF and NUL are never allowed in header fields"#
    static let base = URL(string: "http://api.example.test")!

    static func expectInvalidHeader(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("no error was thrown")
        } catch let error as SluiceError {
            #expect(error.code == .invalidHeader)
            #expect(error.message == expected)
            let fieldError = HTTPFields.FieldError(name: "Authorization", part: .value, problem: .forbiddenCharacter(0x0A), byteOffset: 14)
            #expect(error.underlying as? HTTPFields.FieldError == fieldError)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func theLiteralLeavesTheFieldOutAndRemembersWhy() throws {
        let fields: HTTPFields = ["Accept": "text/plain", "Authorization": "Bearer \(Self.token)", "Bad Name": "x"]
        #expect(fields.map(\.name) == ["Accept"])
        #expect(fields.invalidLiteral?.description == Self.expected)
        #expect(throws: SluiceError.self) { try fields.validated() }
        // The mark survives changes, and a valid literal has none.
        var changed = fields
        try changed.append(name: "X", value: "1")
        #expect(changed.invalidLiteral != nil)
        let valid: HTTPFields = ["Accept": "text/plain"]
        #expect(valid.invalidLiteral == nil)
        #expect(try valid.validated() == valid)
        #expect(fields != valid)
    }

    @Test func everyVerbThrowsBeforeAnythingIsSent() async throws {
        let transport = MockTransport.successful()
        let client = Client(transport: transport, configuration: .init(baseURL: Self.base))
        let headers: HTTPFields = ["Authorization": "Bearer \(Self.token)"]
        await Self.expectInvalidHeader { _ = try await client.get("/x", headers: headers) }
        await Self.expectInvalidHeader { _ = try await client.post("/x", headers: headers) }
        await Self.expectInvalidHeader { _ = try await client.post("/x", json: ["a": 1], headers: headers) }
        await Self.expectInvalidHeader { _ = try await client.put("/x", headers: headers) }
        await Self.expectInvalidHeader { _ = try await client.patch("/x", headers: headers) }
        await Self.expectInvalidHeader { _ = try await client.delete("/x", headers: headers) }
        await Self.expectInvalidHeader { _ = try client.makeRequest(.get, "/x", headers: headers) }
        await Self.expectInvalidHeader { _ = try await client.send(HTTPRequest(url: Self.base, headers: headers)) }
        #expect(transport.requests.isEmpty)
    }

    struct Secret: Endpoint {
        typealias Response = String
        var path: String { "/secret" }
        var headers: HTTPFields { ["Authorization": "Bearer \(HTTPFieldsLiteralTests.token)"] }
    }

    @Test func anEndpointsHeadersAreChecked() async throws {
        let transport = MockTransport.successful()
        let client = Client(transport: transport, configuration: .init(baseURL: Self.base))
        await Self.expectInvalidHeader { _ = try await client.send(Secret()) }
        #expect(transport.requests.isEmpty)
    }

    struct AddsLiteral: Middleware {
        static let defaultPosition = MiddlewarePosition.headers
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            var request = request
            request.headers = ["Authorization": "Bearer \(HTTPFieldsLiteralTests.token)"]
            return try await next(request, context)
        }
    }

    @Test func aFieldAMiddlewareAddsNeverReachesTheTransport() async throws {
        let transport = MockTransport.successful()
        let pipeline = Pipeline(middlewares: [AddsLiteral()], transport: transport)
        await Self.expectInvalidHeader { _ = try await pipeline.send(HTTPRequest(url: Self.base)) }
        #expect(transport.requests.isEmpty)
    }

    @Test func aResponseMadeFromAnInvalidLiteralIsAnError() async throws {
        let transport = MockTransport { _, _ in .status(.ok, headers: ["Authorization": "Bearer \(Self.token)"]) }
        let pipeline = Pipeline(middlewares: [], transport: transport)
        await Self.expectInvalidHeader { _ = try await pipeline.send(HTTPRequest(url: Self.base)) }
    }
}

@Suite("Durations and seconds that do not fit")
struct DurationClampingTests {
    @Test func wholeMillisecondsSaturatesInsteadOfTrapping() {
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
        #expect(Duration.milliseconds(1_500).wholeMilliseconds == 1_500)
        #expect(Duration.seconds(-2).wholeMilliseconds == -2_000)
    }
}

@Suite("Client and Pipeline descriptions")
struct DescriptionTests {
    @Test func aShortDescriptionNamesTheChainAndTheDebugOneHasTheRest() {
        let client = Client(
            transport: MockTransport.successful(), middlewares: [FakeLogging()],
            configuration: .init(baseURL: URL(string: "https://ann:pw@api.example.com/v1")))
        #expect(client.description == "Client(https://ann:<redacted>@api.example.com/v1: RedirectMiddleware → Fake<LoggingRole> → MockTransport)")
        #expect(client.pipeline.description == "Pipeline(RedirectMiddleware → Fake<LoggingRole> → MockTransport)")
        #expect("\(client)".count < 200)
        #expect(client.debugDescription.contains("configuration:") && client.debugDescription.contains("transport: "))
    }
}

@Suite("Error messages and secrets a server echoes")
struct EchoedSecretsInErrorsTests {
    @Test func aRefusedCallsBodySnippetHidesTheRequestsSecrets() async throws {
        // The server answers 403 with the request it got, token, key and password in it.
        let transport = MockTransport { request, _ in
            let echo = #"{"error":"denied","you_sent":{"authorization":"\#(request.headers["Authorization"] ?? "")","url":"\#(request.url.absoluteString)"}}"#
            return .status(.forbidden, headers: ["Content-Type": "application/json"], body: echo)
        }
        let client = Client(transport: transport, configuration: .init(baseURL: URL(string: "https://api.example.com")))
        struct Reply: Decodable {}
        let error = await #expect(throws: SluiceError.self) {
            _ = try await client.get("/me?api_key=KEY-123456", headers: ["Authorization": "Bearer TOKEN-abcdef"], as: Reply.self)
        }
        let message = try #require(error?.message)
        #expect(error?.code == .unacceptableStatus)
        #expect(message.contains("denied"), "the body is still quoted: \(message)")
        #expect(!message.contains("TOKEN-abcdef") && !message.contains("KEY-123456"), "\(message)")
    }
}

@Suite("Standard reason phrases")
struct ReasonPhraseTests {
    @Test func theStandardPhraseInAnyCaseIsStandardAndAnythingElseIsNot() {
        #expect(HTTPStatus(code: 200, reasonPhrase: "OK").hasStandardReasonPhrase)
        #expect(HTTPStatus(code: 404, reasonPhrase: "NOT FOUND").hasStandardReasonPhrase)
        #expect(HTTPStatus(code: 404, reasonPhrase: "").hasStandardReasonPhrase)
        #expect(!HTTPStatus(code: 404, reasonPhrase: "Not Found!").hasStandardReasonPhrase)
        #expect(!HTTPStatus(code: 200, reasonPhrase: "OK token").hasStandardReasonPhrase)
        #expect(!HTTPStatus(code: 200, reasonPhrase: "ok\u{0}").hasStandardReasonPhrase)
    }
}
