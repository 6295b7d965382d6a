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

let endpointBase = URL(string: "https://api.example.com/v1")!

func client(_ transport: MockTransport, _ configure: (inout Client.Configuration) -> Void = { _ in }) -> Client {
    var configuration = Client.Configuration(baseURL: endpointBase)
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
