import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceGzip
import SluiceHUD
import SluiceOutbox
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import SluiceURLEncoding
import Testing

/// Every public request option, on a chain without the middleware that reads it and with it: an
/// option nothing reads is `.misconfigured` before anything is sent, never ignored.
@Suite("Request options nothing reads")
struct OptionReadersTests {
    struct Case: Sendable, CustomStringConvertible {
        let property: String
        let set: @Sendable (inout HTTPRequest) -> Void
        let reader: String
        let module: String
        let middleware: @Sendable (TemporaryDirectory) throws -> any Middleware
        var description: String { property }
    }

    /// Shows nothing.
    struct SilentHUD: HUDPresenter {
        func show(tip: String?) async {}
        func update(progress: TransferProgress) async {}
        func dismiss() async {}
    }

    static let cases: [Case] = [
        Case(
            property: "request.cachePolicy", set: { $0.cachePolicy = .reloadIgnoringCache }, reader: "CacheMiddleware", module: "SluiceCache",
            middleware: { _ in CacheMiddleware(store: MemoryCacheStore()) }),
        Case(
            property: "request.cacheTTL", set: { $0.cacheTTL = 60 }, reader: "CacheMiddleware", module: "SluiceCache",
            middleware: { _ in CacheMiddleware(store: MemoryCacheStore()) }),
        Case(
            property: "request.cachesPOST", set: { $0.cachesPOST = true }, reader: "CacheMiddleware", module: "SluiceCache",
            middleware: { _ in CacheMiddleware(store: MemoryCacheStore()) }),
        Case(
            property: "request.retriesNonIdempotent", set: { $0.retriesNonIdempotent = true }, reader: "RetryMiddleware", module: "SluiceRetry",
            middleware: { _ in RetryMiddleware() }),
        Case(
            property: "request.formParameters", set: { $0.formParameters = ["user": "ann"] }, reader: "URLEncodingMiddleware",
            module: "SluiceURLEncoding", middleware: { _ in URLEncodingMiddleware() }),
        Case(
            property: "request.hudTip", set: { $0.hudTip = "Loading" }, reader: "HUDMiddleware", module: "SluiceHUD",
            middleware: { _ in HUDMiddleware(presenter: SilentHUD()) }),
        Case(
            property: "request.showsHUD", set: { $0.showsHUD = .never }, reader: "HUDMiddleware", module: "SluiceHUD",
            middleware: { _ in HUDMiddleware(presenter: SilentHUD()) }),
        Case(
            property: "request.usesOutbox", set: { $0.usesOutbox = true }, reader: "OutboxMiddleware", module: "SluiceOutbox",
            middleware: { folder in OutboxMiddleware(outbox: try Outbox(path: folder.filePath("outbox.sqlite"), transport: MockTransport.successful())) }),
        Case(
            property: "request.compressesBody", set: { $0.compressesBody = .always }, reader: "GzipMiddleware", module: "SluiceGzip",
            middleware: { _ in GzipMiddleware() }),
        Case(
            property: "request.redirectPolicy", set: { $0.redirectPolicy = .follow(max: 2) }, reader: "RedirectMiddleware", module: "Sluice",
            middleware: { _ in RedirectMiddleware() }),
    ]

    @Test(arguments: cases)
    func anOptionWithoutItsMiddlewareIsMisconfiguredAndNothingIsSent(_ option: Case) async throws {
        let transport = MockTransport.successful(body: "sent")
        var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/notes?page=2")!, body: .bytes(Data("{}".utf8)))
        option.set(&request)
        let bare = Pipeline(middlewares: [], transport: transport)
        await #expect {
            _ = try await bare.send(request)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .misconfigured
                && error?.message
                    == "\(option.property) is set on POST https://api.example.com/notes?page=2, but nothing in this chain reads it: "
                    + "add \(option.reader) (from \(option.module)) to the client"
        }
        #expect(transport.requests.isEmpty)

        // With the middleware that reads it, the request goes out.
        let folder = try TemporaryDirectory(prefix: "sluice-options")
        let whole = Pipeline(middlewares: [try option.middleware(folder)], transport: transport)
        _ = try await whole.send(request)
        #expect(transport.requests.count == 1)
    }

    @Test func maxResponseBodySizeIsReadByCurlNotByAMockTransport() async throws {
        var request = HTTPRequest(url: URL(string: "https://api.example.com/x")!)
        request.maxResponseBodySize = 1_000
        await #expect {
            _ = try await Pipeline(middlewares: [], transport: MockTransport.successful()).send(request)
        } throws: {
            ($0 as? SluiceError)?.message
                == "request.maxResponseBodySize is set on GET https://api.example.com/x, but nothing in this chain reads it: "
                + "add CurlTransport (from SluiceCurl) to the client"
        }
        #expect(CurlTransport.readsOptions.contains { $0 == MaxResponseBodySizeKey.self })
    }

    @Test func optionsTheCoreHandlesNeedNoMiddleware() async throws {
        let transport = MockTransport.successful()
        var request = HTTPRequest(url: URL(string: "https://api.example.com/search?lang=en")!)
        request.priority = .high
        request.tags = ["search"]
        request.sendsCredentials = true
        request.credentialFields = ["x-token"]
        request.queryParameters = ["q": "café & co", "tags": ["a", "b"]]
        _ = try await Pipeline(middlewares: [], transport: transport).send(request)
        // Query parameters are encoded by the pipeline itself when no middleware does.
        #expect(transport.requests.first?.request.url.absoluteString == "https://api.example.com/search?lang=en&q=caf%C3%A9%20%26%20co&tags=a&tags=b")
        // With a URL-encoding middleware, its own settings apply instead.
        let bracketed = Pipeline(
            middlewares: [URLEncodingMiddleware(configuration: .init(encoder: ParameterEncoder(arrayStyle: .brackets)))], transport: transport)
        _ = try await bracketed.send(request)
        #expect(
            transport.requests.last?.request.url.absoluteString == "https://api.example.com/search?lang=en&q=caf%C3%A9%20%26%20co&tags%5B%5D=a&tags%5B%5D=b")
    }
}
