import Foundation
import Sluice
import SluiceTesting
import Testing

struct Order: Codable, Equatable, Sendable {
    let id: Int
    let item: String
    let count: Int
}

struct NewOrder: Encodable, Sendable {
    let item: String
    let count: Int
}

struct CreateOrder: Endpoint {
    typealias Response = Order
    let body: NewOrder?
    var method: HTTPMethod { .post }
    var path: String { "orders" }
    var query: [URLQueryItem] { [URLQueryItem(name: "note", value: "a b&c=é"), URLQueryItem(name: "dry-run", value: nil)] }
    var headers: HTTPFields { ["X-Request-Source": "tests"] }

    func configure(_ request: inout HTTPRequest) {
        request.tags = ["orders"]
        request.priority = .high
    }
}

struct Greeting: Endpoint {
    typealias Response = String
    var path: String { "greeting" }
}

struct Avatar: Endpoint {
    typealias Response = Data
    var path: String { "https://cdn.example.com/avatar.png" }
}

private let base = URL(string: "https://api.example.com/v1")!

private func client(_ transport: MockTransport, _ configure: (inout Client.Configuration) -> Void = { _ in }) -> Client {
    var configuration = Client.Configuration(baseURL: base)
    configure(&configuration)
    return Client(transport: transport, configuration: configuration)
}

@Suite struct EndpointTests {
    @Test func aTypedEndpointRoundTrips() async throws {
        let transport = MockTransport(replies: [.json(#"{"id":7,"item":"pen","count":2}"#, status: .created)])
        let order = try await client(transport).send(CreateOrder(body: NewOrder(item: "pen", count: 2)))
        #expect(order == Order(id: 7, item: "pen", count: 2))
        let sent = try #require(transport.requests.first?.request)
        #expect(sent.method == .post)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/orders?note=a%20b%26c%3D%C3%A9&dry-run")
        #expect(sent.headers["Content-Type"] == "application/json")
        #expect(sent.headers["X-Request-Source"] == "tests")
        #expect(sent.tags == ["orders"])
        #expect(sent.priority == .high)
        let body = try JSONSerialization.jsonObject(with: try await sent.body.collect()) as? [String: Any]
        #expect(body?["item"] as? String == "pen")
        #expect(body?["count"] as? Int == 2)
    }

    @Test func stringAndDataEndpointsDecodeByType() async throws {
        let transport = MockTransport(replies: [
            // "café" in Latin-1: the é is one byte, 0xE9.
            .response(HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; charset=iso-8859-1"], body: Data([0x63, 0x61, 0x66, 0xE9]))),
            .response(HTTPResponse(status: .ok, headers: ["Content-Type": "image/png"], body: Data([0x89, 0x50, 0x4E, 0x47]))),
        ])
        let c = client(transport)
        #expect(try await c.send(Greeting()) == "café")
        #expect(try await c.send(Avatar()) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(transport.requests.map(\.request.url.absoluteString) == ["https://api.example.com/v1/greeting", "https://cdn.example.com/avatar.png"])
    }

    @Test func anEndpointBodyThatCannotBeEncodedIsATypedError() throws {
        struct Bad: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws { throw EncodingError.invalidValue(Double.nan, .init(codingPath: [], debugDescription: "NaN")) }
        }
        struct Post: Endpoint {
            typealias Response = Order
            let body: Bad?
            var method: HTTPMethod { .post }
            var path: String { "orders" }
        }
        #expect {
            try client(MockTransport(replies: [])).request(for: Post(body: Bad()))
        } throws: { error in
            (error as? SluiceError)?.code == .invalidBody && (error as? SluiceError)?.message.hasPrefix("cannot encode Bad as JSON: ") == true
        }
    }
}

@Suite struct ValidationTests {
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
                    == #"GET https://api.example.com/v1/greeting answered 200 OK with Content-Type "text/csv"; accepted: application/json, text/json, text/javascript, text/html, text/plain, text/xml, image/*; body: "a,b\n1,2""#
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
                    == #"GET https://api.example.com/v1/greeting answered 200 OK with no Content-Type; accepted: application/json, text/json, text/javascript, text/html, text/plain, text/xml, image/*; body: "hello""#
            )
        }
        #expect(try await c.send(Greeting()) == "")
    }

    @Test(arguments: [
        ("image/png", true), ("IMAGE/JPEG; q=1", true), ("application/json; charset=utf-8", true), ("text/csv", false),
        ("application/xml", false), ("video/mp4", false),
    ])
    func mediaTypesMatchExactlyOrByWildcard(contentType: String, accepted: Bool) {
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

@Suite struct ResponseDecoderTests {
    struct Event: Decodable, Equatable {
        let eventName: String
        let startsAt: Date
    }

    @Test func jsonStrategiesAreConfigurable() throws {
        let response = HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json"],
            body: Data(#"{"event_name":"launch","starts_at":"2026-11-30T12:00:00Z"}"#.utf8))
        let decoder = JSONResponseDecoder<Event>(dateDecodingStrategy: .iso8601, keyDecodingStrategy: .convertFromSnakeCase)
        #expect(try decoder.decode(response) == Event(eventName: "launch", startsAt: Date(timeIntervalSince1970: 1_796_040_000)))
        #expect {
            try JSONResponseDecoder<Event>().decode(response)
        } throws: { error in
            (error as? SluiceError)?.message
                == #"cannot decode Event from the response body: key "eventName" not found at the top level; body: "{\"event_name\":\"launch\",\"starts_at\":\"2026-11-30T12:00:00Z\"}""#
        }
    }

    @Test func stringsFollowTheCharsetAndRefuseBadBytes() throws {
        func response(_ type: String?, _ bytes: [UInt8]) -> HTTPResponse {
            HTTPResponse(status: .ok, headers: type.map { ["Content-Type": $0] } ?? [:], body: Data(bytes))
        }
        let decoder = StringResponseDecoder()
        #expect(try decoder.decode(response("text/plain; charset=\"UTF-8\"", Array("naïve".utf8))) == "naïve")
        #expect(try decoder.decode(response("text/plain; charset=utf-16le", [0x68, 0x00, 0x69, 0x00])) == "hi")
        #expect(try decoder.decode(response(nil, Array("plain".utf8))) == "plain")
        #expect {
            try decoder.decode(response("text/plain; charset=utf-8", [0x61, 0xFF, 0x62]))
        } throws: { error in
            (error as? SluiceError)?.message == "the response body is not valid utf-8 text; body: \"a\u{FFFD}b\""
        }
        #expect {
            try decoder.decode(response("text/plain; charset=klingon", [0x61]))
        } throws: { error in
            (error as? SluiceError)?.code == .decodingFailed
                && (error as? SluiceError)?.message == #"the response's charset "klingon" is not one Sluice can decode"#
        }
    }

    @Test func dataComesFromMemoryOrTheBodyFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("on disk".utf8).write(to: file)
        var response = HTTPResponse(status: .ok)
        response.bodyFile = file
        #expect(try DataResponseDecoder().decode(response) == Data("on disk".utf8))
        try FileManager.default.removeItem(at: file)
        #expect {
            try DataResponseDecoder().decode(response)
        } throws: { error in
            (error as? SluiceError)?.code == .decodingFailed
                && (error as? SluiceError)?.message.hasPrefix("cannot read the response body file \(file.path): ") == true
        }
    }
}

extension Client {
    /// Whether ``validate(_:)`` passes `response`.
    func validate(response: HTTPResponse) -> Bool {
        (try? validate(response)) != nil
    }
}
