import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite struct ValidationTests {
    struct Order: Decodable, Equatable {
        let id: Int
    }

    @Test(arguments: ["application/vnd.api+json", "application/hal+json", "application/problem+json"])
    func jsonWithAStructuredSuffixDecodes(contentType: String) async throws {
        let transport = MockTransport(replies: [.status(.ok, headers: ["Content-Type": contentType], body: #"{"id":7}"#)])
        let order = try await client(transport).get("orders/7", as: Order.self)
        #expect(order == Order(id: 7))
    }

    @Test func aProblemDocumentIsReadIntoTheError() async throws {
        let document = #"""
            {"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","status":403,
             "detail":"Your current balance is 30, but that costs 50.","instance":"/account/12345/msgs/abc",
             "balance":30,"accounts":["/account/12345","/account/67890"],"trial":false,"note":null,"limits":{"daily":5}}
            """#
        let transport = MockTransport(replies: [.status(403, headers: ["Content-Type": "application/problem+json"], body: document)])
        do {
            _ = try await client(transport).get("orders/7", as: Order.self)
            Issue.record("accepted a 403")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableStatus)
            #expect(
                error.problem
                    == ProblemDetails(
                        type: "https://example.com/probs/out-of-credit", title: "You do not have enough credit.", status: 403,
                        detail: "Your current balance is 30, but that costs 50.", instance: "/account/12345/msgs/abc",
                        extensions: [
                            "balance": .number(30), "accounts": .array([.string("/account/12345"), .string("/account/67890")]),
                            "trial": .bool(false), "note": .null, "limits": .object(["daily": .number(5)]),
                        ]))
        }
    }

    @Test func membersOfTheWrongTypeAreIgnoredAndOtherBodiesGiveNoProblem() async throws {
        let problem = ProblemDetails(json: Data(#"{"title":5,"status":"403","detail":"d"}"#.utf8))
        #expect(problem == ProblemDetails(detail: "d"))
        #expect(problem?.type == "about:blank")
        #expect(ProblemDetails(json: Data("[1,2]".utf8)) == nil)
        #expect(ProblemDetails(json: Data("not json".utf8)) == nil)
        // A JSON error body that is not a problem document leaves `problem` empty.
        let transport = MockTransport(replies: [.json(#"{"title":"x"}"#, status: .badRequest)])
        await #expect {
            _ = try await client(transport).get("orders/7", as: Order.self)
        } throws: { ($0 as? SluiceError)?.code == .unacceptableStatus && ($0 as? SluiceError)?.problem == nil }
    }

    @Test func anUnacceptableStatusShowsTheRedactedBody() async throws {
        let transport = MockTransport(replies: [.json(#"{"error":"expired","token":"abc123"}"#, status: .unauthorized)])
        do {
            _ = try await client(transport).send(Greeting())
            Issue.record("accepted a 401")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableStatus)
            #expect(
                error.message
                    == #"GET https://api.example.com/v1/greeting answered 401 Unauthorized; accepted: 200..<300; body: "{\"error\":\"expired\",\"token\":\"<redacted>\"}""#
            )
            #expect(error.response?.status == .unauthorized)
        }
    }

    @Test func anUnacceptableContentTypeIsNamedWithTheAcceptedList() async throws {
        let transport = MockTransport(replies: [.status(.ok, headers: ["Content-Type": "text/csv"], body: "a,b\n1,2")])
        do {
            _ = try await client(transport).send(Greeting())
            Issue.record("accepted text/csv")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableContentType)
            #expect(
                error.message
                    == #"GET https://api.example.com/v1/greeting answered 200 OK with Content-Type "text/csv"; accepted: application/json, text/json, text/javascript, text/html, text/plain, application/xml, text/xml, image/*; body: "a,b\n1,2""#
            )
        }
    }

    @Test func aBodyWithNoContentTypeIsRefusedButAnEmptyOneIsNot() async throws {
        let transport = MockTransport(replies: [.status(.ok, body: "hello"), .status(.ok)])
        let c = client(transport)
        do {
            _ = try await c.send(Greeting())
            Issue.record("accepted an untyped body")
        } catch let error as SluiceError {
            #expect(
                error.message
                    == #"GET https://api.example.com/v1/greeting answered 200 OK with no Content-Type; accepted: application/json, text/json, text/javascript, text/html, text/plain, application/xml, text/xml, image/*; body: "hello""#
            )
        }
        #expect(try await c.send(Greeting()) == "")
    }

    @Test(arguments: [
        ("image/png", true), ("IMAGE/JPEG; q=1", true), ("application/json; charset=utf-8", true), ("text/csv", false),
        ("application/xml", true), ("video/mp4", false), ("application/problem+json", true), ("application/vnd.api+json", true),
        ("application/hal+json; charset=utf-8", true), ("application/atom+xml", true), ("image/svg+xml", true),
        ("application/vnd.foo+zip", false), ("application/jsonx", false), ("application/json+", false),
    ])
    func mediaTypesMatchExactlyByWildcardOrByStructuredSuffix(contentType: String, accepted: Bool) {
        let response = HTTPResponse(status: .ok, headers: ["Content-Type": contentType], body: Data("x".utf8))
        #expect(Client(transport: MockTransport(replies: [])).validate(response: response) == accepted)
    }

    @Test func typesCanBeAddedOrTheCheckTurnedOff() async throws {
        let transport = MockTransport(replies: [
            .status(.ok, headers: ["Content-Type": "application/xml"], body: "<a/>"),
            .status(.ok, headers: ["Content-Type": "text/csv"], body: "a"),
        ])
        let c = client(transport) { $0.acceptableContentTypes?.append("application/xml") }
        #expect(try await c.send(Greeting()) == "<a/>")
        #expect(try await client(transport) { $0.acceptableContentTypes = nil }.send(Greeting()) == "a")
    }
}

/// Issue 41, item 2: every body a typed call collects is bounded by the client's
/// `maxResponseBodySize`, whatever transport made it and whether it came whole or as a stream.
@Suite struct TypedCallBodyLimitTests {
    static let url = URL(string: "https://api.example.com/report")!

    func client(_ transport: MockTransport, limit: Int) -> Client {
        Client(transport: transport, configuration: .init(maxResponseBodySize: limit))
    }

    @Test func aBufferedBodyPastTheLimitIsBodyTooLargeBeforeItIsDecoded() async throws {
        let body = "[" + String(repeating: "1,", count: 1_000) + "1]"
        let transport = MockTransport(replies: [.status(.ok, headers: ["Content-Type": "application/json"], body: body)])
        await #expect {
            _ = try await client(transport, limit: 1_024).send(HTTPRequest(url: Self.url), decoding: [Int].self)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .bodyTooLarge
                && error?.message
                    == "the response body of GET https://api.example.com/report is larger than the limit of 1024 bytes (Client.Configuration.maxResponseBodySize)"
        }
        // Within the limit, the same body decodes.
        let fits = MockTransport(replies: [.status(.ok, headers: ["Content-Type": "application/json"], body: body)])
        #expect(try await client(fits, limit: body.utf8.count).send(HTTPRequest(url: Self.url), decoding: [Int].self).count == 1_001)
    }

    /// A streamed answer a typed call decodes is read whole first, and stops as it crosses the
    /// limit: the stream is never read past it.
    @Test func aStreamedBodyIsReadWholeWithinTheLimitAndStoppedPastIt() async throws {
        let pulled = Locked(0)
        func streamed(chunks: Int) -> MockTransport {
            MockTransport { _, _ in
                var response = HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"])
                let left = Locked(chunks)
                response.bodyStream = ResponseBodyStream(pull: {
                    left.withLock { left in
                        guard left > 0 else { return nil }
                        left -= 1
                        pulled.withLock { $0 += 1 }
                        return Data(repeating: 0x61, count: 1_000)
                    }
                })
                return .response(response)
            }
        }
        var request = HTTPRequest(url: Self.url)
        request.streamsResponseBody = true
        #expect(try await client(streamed(chunks: 3), limit: 4_000).send(request, decoder: StringResponseDecoder()).count == 3_000)
        pulled.withLock { $0 = 0 }
        await #expect {
            _ = try await client(streamed(chunks: 100), limit: 4_000).send(request, decoder: StringResponseDecoder())
        } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge }
        #expect(pulled.withLock { $0 } == 5)
    }
}

/// Issue 41, item 8: every verb checks the status, with or without `as:`; `send(_:)` is the one
/// way to take any status as an answer.
@Suite struct VerbStatusTests {
    static let base = URL(string: "https://api.example.com/")!

    func client(_ status: HTTPStatus, acceptable: Range<Int> = 200..<300) -> Client {
        Client(
            transport: MockTransport { _, _ in .status(status, headers: ["Content-Type": "text/plain"], body: "no such user") },
            configuration: .init(baseURL: Self.base, acceptableStatusCodes: acceptable))
    }

    struct Name: Encodable { let name: String }

    @Test func everyVerbWithoutAsThrowsOnAStatusOutsideTheAcceptedRange() async throws {
        let client = client(.notFound)
        let calls: [(String, @Sendable () async throws -> HTTPResponse)] = [
            ("GET", { try await client.get("users/42") }), ("POST", { try await client.post("users", body: .bytes(Data("x".utf8))) }),
            ("POST", { try await client.post("users", json: Name(name: "Ada")) }), ("PUT", { try await client.put("users/42") }),
            ("PUT", { try await client.put("users/42", json: Name(name: "Ada")) }), ("PATCH", { try await client.patch("users/42") }),
            ("PATCH", { try await client.patch("users/42", json: Name(name: "Ada")) }), ("DELETE", { try await client.delete("users/42") }),
            ("DELETE", { try await client.delete("users/42", json: Name(name: "Ada")) }),
        ]
        for (method, call) in calls {
            do {
                _ = try await call()
                Issue.record("\(method) returned a 404")
            } catch let error as SluiceError {
                #expect(error.code == .unacceptableStatus)
                #expect(error.message.hasPrefix("\(method) https://api.example.com/users"))
                #expect(error.message.contains("answered 404 Not Found; accepted: 200..<300; body: "), "\(error.message)")
                #expect(error.response?.status == .notFound && error.response?.text == "no such user")
            }
        }
    }

    @Test func aServerErrorFromAJSONPostThrows() async throws {
        await #expect {
            _ = try await client(.internalServerError).post("users", json: Name(name: "Ada"))
        } throws: { ($0 as? SluiceError)?.code == .unacceptableStatus && ($0 as? SluiceError)?.response?.status == .internalServerError }
    }

    /// The statuses the client accepts are the verbs' too; and a verb without `as:` checks no media
    /// type (it returns the response as it is).
    @Test func theClientsAcceptedStatusesApplyAndNoMediaTypeIsChecked() async throws {
        #expect(try await client(.notFound, acceptable: 200..<500).delete("users/42").status == .notFound)
        let image = Client(
            transport: MockTransport { _, _ in .status(.ok, headers: ["Content-Type": "application/x-unheard-of"], body: "x") },
            configuration: .init(baseURL: Self.base))
        #expect(try await image.get("blob").text == "x")
    }

    /// `send(_:)` returns any status: the documented way to take a 404 as an answer.
    @Test func sendReturnsAnyStatus() async throws {
        let client = client(.notFound)
        let response = try await client.send(client.makeRequest(.delete, "users/42"))
        #expect(response.status == .notFound)
    }
}
