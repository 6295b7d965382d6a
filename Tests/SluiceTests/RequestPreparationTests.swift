import Foundation
import Sluice
import SluiceTesting
import Testing

/// The core's own stages (``RequestPreparation``): the same for a client, a bare pipeline and a
/// chain handle's replay. The wire bytes by every door are compared in
/// `SluiceOpenAPITests/EveryDoorTests`.
@Suite("RequestPreparation")
struct RequestPreparationTests {
    enum ShadowKey: RequestOptionKey {
        static let defaultValue = false
        static var reader: OptionReader? { OptionReader(property: "shadow", middleware: "ShadowMiddleware", module: "SluiceShadow") }
    }

    /// Keeps the chain handle it is given.
    final class Holder: Middleware, ChainAttachable, Sendable {
        let handle = Locked<ChainHandle?>(nil)
        func attach(to handle: ChainHandle) { self.handle.withLock { $0 = handle } }
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            try await next(request, context)
        }
    }

    @Test func theStagesRunInTheirDocumentedOrder() {
        #expect(RequestPreparation.Step.allCases == [.baseURL, .privacy, .fields, .jsonBody, .framing, .options, .query])
    }

    /// A bare pipeline has no base URL: a relative request is refused as a client without one
    /// refuses it, before anything is sent.
    @Test func aBarePipelineRefusesARelativeURL() async {
        let transport = MockTransport(replies: [.status(.ok)])
        await #expect {
            _ = try await Pipeline(middlewares: [], transport: transport).send(HTTPRequest(url: URL(string: "users?page=2")!))
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidURL && error?.message == #""users?page=2" is not an absolute URL and the client has no base URL"#
        }
        #expect(transport.requests.isEmpty)
    }

    /// Query parameters and a JSON body set by value are encoded the same by a bare pipeline
    /// as by a client with the default encoder.
    @Test func aBarePipelineEncodesAsADefaultClientDoes() async throws {
        var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/items")!)
        request.queryParameters = .dictionary([("q", .string("café au lait")), ("n", .string("50%25"))])
        try request.setJSONBody(["b": 1])
        let bare = MockTransport(replies: [.status(.ok)])
        _ = try await Pipeline(middlewares: [], transport: bare).send(request)
        let viaClient = MockTransport(replies: [.status(.ok)])
        _ = try await Client(transport: viaClient).send(request)
        let sent = try #require(bare.requests.first?.request)
        #expect(sent.url.absoluteString == "https://api.example.com/v1/items?q=caf%C3%A9%20au%20lait&n=50%2525")
        #expect(sent.url == viaClient.requests.first?.request.url)
        #expect(bare.requests.first?.body == viaClient.requests.first?.body)
    }

    /// A replay through a chain handle (an outbox's) passes the same stages: its relative URL is
    /// joined to the client's base URL, and an option nothing reads is refused before it is sent.
    @Test func aChainHandlesReplayPassesTheSameStages() async throws {
        let holder = Holder()
        let transport = MockTransport(replies: [.status(.ok)])
        let client = Client(transport: transport, middlewares: [holder], configuration: .init(baseURL: URL(string: "https://api.example.com/v1")))
        let handle = try #require(holder.handle.withLock { $0 })
        _ = try await handle.send(HTTPRequest(url: URL(string: "replayed")!))
        #expect(transport.requests.first?.request.url.absoluteString == "https://api.example.com/v1/replayed")
        var request = HTTPRequest(url: URL(string: "https://api.example.com/x")!)
        request.options[ShadowKey.self] = true
        await #expect {
            _ = try await handle.send(request)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .misconfigured
                && error?.message
                    == "shadow is set on GET https://api.example.com/x, but nothing in this chain reads it: add ShadowMiddleware (from SluiceShadow) to the client"
        }
        #expect(transport.requests.count == 1)
        _ = client
    }
}
