#if OpenAPI
    import Foundation
    import HTTPTypes
    import OpenAPIRuntime
    import Sluice
    import SluiceCurl
    import SluiceOpenAPI
    import SluiceRetry
    import SluiceTestSupport
    import SluiceTesting
    import Testing

    /// Issue 43, item 1: one way in. The same request, sent by every door a caller has, leaves as
    /// the same bytes on a real socket: the core's own stages (``RequestPreparation``) are the only
    /// path, whichever door runs them. Here because this is the one test target that reaches every
    /// door (generated clients included) through real curl.
    @Suite struct EveryDoorTests {
        struct Order: Codable, Sendable {
            var item: String
            var count: Int
        }

        /// Keeps the chain handle it is given, for the replay door (an outbox's).
        final class Doorway: Middleware, ChainAttachable, Sendable {
            let handle = Locked<ChainHandle?>(nil)
            func attach(to handle: ChainHandle) { self.handle.withLock { $0 = handle } }
            func intercept(_ request: Sluice.HTTPRequest, context: RequestContext, next: Next) async throws -> Sluice.HTTPResponse {
                try await next(request, context)
            }
        }

        struct PlaceOrder: Endpoint {
            typealias Response = Data
            let order: Order
            var method: HTTPMethod { .post }
            var path: String { "orders" }
            var query: [URLQueryItem] { [URLQueryItem(name: "tag", value: "a/b c"), URLQueryItem(name: "code", value: "50%25")] }
            var body: Order? { order }
            var headers: Sluice.HTTPFields { ["X-Team": "api"] }
        }

        @Test func oneRequestLeavesAsTheSameBytesByEveryDoor() async throws {
            let server = try MockWebServer()
            server.setHandler { _ in MockWebServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: "{}") }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let doorway = Doorway()
            let client = Sluice.Client(
                transport: CurlTransport(), middlewares: [RetryMiddleware(), doorway],
                configuration: .init(baseURL: server.url("/v1"), encoder: encoder))
            let order = Order(item: "tea", count: 2)
            let path = "orders?tag=a/b%20c&code=50%2525"
            // A relative request whose JSON body the client's encoder encodes when it is sent.
            var relative = Sluice.HTTPRequest(method: .post, url: URL(string: path)!, headers: ["X-Team": "api"])
            try relative.setJSONBody(order)
            var absolute = Sluice.HTTPRequest(method: .post, url: server.url("/v1/" + path), headers: ["X-Team": "api"])
            try absolute.setJSONBody(order, encoder: encoder)

            var doors: [String] = []
            func through(_ door: String, _ send: () async throws -> Void) async throws {
                try await send()
                doors.append(door)
            }
            try await through("a verb") { _ = try await client.post(path, json: order, headers: ["X-Team": "api"]) }
            try await through("an Endpoint") { _ = try await client.send(PlaceOrder(order: order)) }
            try await through("Client.send") { _ = try await client.send(client.jsonRequest(.post, path, order, headers: ["X-Team": "api"])) }
            try await through("Client.send, relative") { _ = try await client.send(relative) }
            try await through("Client.stream") {
                let response = try await client.stream(relative)
                for try await _ in try #require(response.bodyStream) {}
            }
            try await through("Client.send with extra middleware") { _ = try await client.send(relative, with: [Doorway()]) }
            try await through("the client's Pipeline.send") { _ = try await client.pipeline.send(relative) }
            try await through("a chain handle's replay") { _ = try await #require(doorway.handle.withLock { $0 }).send(relative) }
            try await through("a bare Pipeline of the same chain") {
                _ = try await Pipeline(middlewares: client.pipeline.middlewares, transport: client.pipeline.transport).send(absolute)
            }
            try await through("a generated client") {
                var head = HTTPTypes.HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/" + path)
                head.headerFields[HTTPField.Name("X-Team")!] = "api"
                head.headerFields[.contentType] = "application/json"
                let (_, body) = try await OpenAPITransport(client: client).send(
                    head, body: OpenAPIRuntime.HTTPBody(try encoder.encode(order)), baseURL: URL(string: "/")!, operationID: "placeOrder")
                _ = try await Data(collecting: try #require(body), upTo: 1 << 10)
            }

            let sent = server.requests
            try #require(sent.count == doors.count)
            let first = sent[0]
            #expect(first.method == "POST")
            #expect(first.target == "/v1/orders?tag=a/b%20c&code=50%2525")
            #expect(String(decoding: first.body, as: UTF8.self) == #"{"count":2,"item":"tea"}"#)
            #expect(first.header("X-Team") == "api" && first.header("Content-Type") == "application/json")
            func bytes(_ request: MockWebServer.RecordedRequest) -> String {
                ([request.method + " " + request.target + " " + request.version] + request.headers.map { $0.name + ": " + $0.value })
                    .joined(separator: "\r\n") + "\r\n\r\n" + String(decoding: request.body, as: UTF8.self)
            }
            for (door, request) in zip(doors, sent) {
                #expect(bytes(request) == bytes(first), "\(door) sent other bytes than \(doors[0])")
            }
        }
    }
#endif
