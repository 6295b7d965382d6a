import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceGzip
import SluiceHUD
import SluiceLogging
import SluiceSigning
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceStandard

@Suite("Client.standard", .timeLimit(.minutes(1)))
struct StandardStackTests {
    /// Records what a HUD is asked to do.
    final class RecordingHUD: HUDPresenter {
        let calls = Locked<[String]>([])
        func show(tip: String?) async { calls.withLock { $0.append("show") } }
        func update(progress: TransferProgress) async {}
        func dismiss() async { calls.withLock { $0.append("dismiss") } }
    }

    struct Item: Decodable, Equatable {
        let id: Int
    }

    @Test func threeLinesGiveEveryDefaultMiddlewareInTheDefaultOrder() throws {
        let client = try Client.standard(
            baseURL: URL(string: "https://api.example.com/v1"), cache: .memory, auth: .bearer { "t0k" }, hud: RecordingHUD())
        #expect(
            client.builder.entries.map { "\(type(of: $0.middleware))" } == [
                "HUDMiddleware", "LoggingMiddleware", "AuthTokenMiddleware", "URLEncodingMiddleware", "RedirectMiddleware", "CacheMiddleware",
                "RetryMiddleware", "ReachabilityGateMiddleware", "GzipMiddleware",
            ])
        #expect(client.configuration.baseURL?.absoluteString == "https://api.example.com/v1")
        // Without a HUD, a cache or auth, those are left out; a signer signs.
        let plain = try Client.standard(cache: .none)
        #expect(!plain.builder.contains(HUDMiddleware.self) && !plain.builder.contains(CacheMiddleware.self))
        let signed = try Client.standard(auth: .signed(HMACParameterSigner(configuration: .init(key: Data("k".utf8)))))
        #expect(signed.builder.contains(SigningMiddleware.self))
    }

    @Test(arguments: ["", ".", "..", "a/b", "/"])
    func anAppNameThatIsNotOneFolderIsMisconfigured(app: String) throws {
        #expect {
            _ = try Client.standard(cache: .userCache(app: app))
        } throws: { error in
            (error as? SluiceError)?.code == .misconfigured
                && (error as? SluiceError)?.message
                    == "the cache's app name \(String(reflecting: app)) must be one folder name: not empty, not . or .., no / or NUL"
        }
    }

    @Test func theUserCacheIsUnderXDGCacheHomeThenHomeThenTheTemporaryFolder() throws {
        let path = StandardStack.Cache.userCachePath
        #expect(try path("my-app", ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/ann"]) == "/x/cache/my-app/http.sqlite")
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
        #expect(try path("my-app", ["XDG_CACHE_HOME": "cache", "HOME": "/home/ann/"]) == "/home/ann/.cache/my-app/http.sqlite")
        let temporary = NSTemporaryDirectory()
        #expect(try path("my-app", [:]) == (temporary.hasSuffix("/") ? temporary : temporary + "/") + "my-app/http.sqlite")
    }

    @Test func customizeChangesTheBuilderLastAndItsErrorIsTheCallersError() throws {
        struct Tenant: Middleware {
            func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
                try await next(request, context)
            }
        }
        let client = try Client.standard(cache: .none) { builder in
            builder.add(Tenant())
            _ = builder.remove(GzipMiddleware.self)
        }
        let names = client.builder.entries.map { "\(type(of: $0.middleware))" }
        #expect(!names.contains("GzipMiddleware"))
        // At `.application`: after URL encoding, before the redirect follower.
        #expect(names.firstIndex(of: "Tenant") == names.firstIndex(of: "URLEncodingMiddleware").map { $0 + 1 })
        struct Refused: Error {}
        #expect(throws: Refused.self) { _ = try Client.standard(cache: .none) { _ in throw Refused() } }
    }

    @Test func aCallGoesThroughEveryOne() async throws {
        let server = try MockWebServer()
        let calls = Locked(0)
        server.setHandler { request in
            let call = calls.withLock { value -> Int in
                value += 1
                return value
            }
            guard request.header("Authorization") == "Bearer t0k" else { return .init(status: 401, body: "who?") }
            if call == 1 { return .init(status: 503, headers: [("Retry-After", "0")], body: "busy") }
            let body = try! GzipCodec.compress(Data(#"{"id":7}"#.utf8))
            return .init(
                status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Cache-Control", "max-age=60")],
                body: body)
        }
        let hud = RecordingHUD()
        let folder = try TemporaryDirectory(prefix: "sluice-standard")
        let client = try Client.standard(
            baseURL: server.baseURL, cache: .sqlite(folder.filePath("cache.sqlite")), auth: .bearer { "t0k" }, hud: hud,
            configuration: .init(isTracing: true))
        // Retried after the 503, decoded from gzip, the token on every attempt.
        let first = try await client.get("items/7")
        #expect(try client.decode(Item.self, from: client.validate(first)) == Item(id: 7))
        // Every stage ran; the logger only when SLUICE_LOG turns it on, as it may where the tests run.
        let logs = LoggingMiddleware.fromEnvironment().configured(by: ProcessInfo.processInfo.environment) != nil
        #expect(
            first.trace?.spans.map(\.stage.description)
                == [
                    "middleware HUDMiddleware", logs ? "middleware LoggingMiddleware" : nil, "middleware AuthTokenMiddleware",
                    "middleware URLEncodingMiddleware", "middleware RedirectMiddleware", "middleware CacheMiddleware", "middleware RetryMiddleware",
                    "middleware ReachabilityGateMiddleware", "middleware GzipMiddleware", "transport CurlTransport",
                ].compactMap { $0 })
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.header("Accept-Encoding") == "gzip, deflate, br, zstd" })
        // Answered from the SQLite cache the second time.
        let again = try await client.get("items/7")
        #expect(again.source == .cache)
        #expect(server.requests.count == 2)
        #expect(FileManager.default.fileExists(atPath: folder.filePath("cache.sqlite")))
    }

    @Test(arguments: ["br", "zstd"])
    func aBodyInBrOrZstdIsStoredDecodedAndItsRangesServedFromTheDecodedBytes(coding: String) async throws {
        let server = try await ScriptServer.start("codings.py")
        let folder = try TemporaryDirectory(prefix: "sluice-standard")
        let client = try Client.standard(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)/")!, cache: .sqlite(folder.filePath("cache.sqlite")))
        let first = try await client.get(coding)
        #expect(first.source == .network && first.headers["Content-Encoding"] == nil)
        let json = try #require(try JSONSerialization.jsonObject(with: first.body) as? [String: Any])
        #expect(json["coding"] as? String == coding && json["accept-encoding"] as? String == "gzip, deflate, br, zstd")
        // The stored copy is the decoded body, so its Vary on Accept-Encoding matches the next call
        // and a range is cut from the decoded bytes; the server saw one request.
        let again = try await client.get(coding)
        #expect(again.source == .cache && again.body == first.body)
        var ranged = try client.makeRequest(.get, coding)
        try ranged.headers.set(name: "Range", value: "bytes=0-9")
        let piece = try await client.send(ranged)
        #expect(piece.status.code == 206 && piece.body == first.body.prefix(10) && piece.headers["Content-Encoding"] == nil)
        #expect(try await server.lines(count: 1) == ["/\(coding) gzip, deflate, br, zstd"])
    }
}
