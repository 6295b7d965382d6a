import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("CacheMiddleware against nginx and httpbin")
struct CacheInteropTests {
    let folder: TemporaryDirectory
    let pipeline: Pipeline

    init() throws {
        folder = try TemporaryDirectory(prefix: "sluice-cache")
        let store = try SQLiteCacheStore(path: folder.filePath("interop.sqlite"))
        pipeline = Pipeline(middlewares: [CacheMiddleware(store: store)], transport: CurlTransport())
    }

    func sources(_ url: URL, times: Int = 3) async throws -> [ResponseSource] {
        var sources: [ResponseSource] = []
        var body: Data?
        for _ in 0..<times {
            let response = try await pipeline.send(HTTPRequest(url: url))
            #expect(response.status.code == 200)
            if let body { #expect(response.body == body, "every answer has the first body") }
            body = response.body
            sources.append(response.source)
        }
        return sources
    }

    @Test func nginxRevalidatesByETag() async throws {
        let url = try InteropServers.url("SLUICE_NGINX_URL").appendingPathComponent("validate/etag.json")
        #expect(try await sources(url) == [.network, .revalidated, .revalidated])
    }

    @Test func nginxRevalidatesByLastModified() async throws {
        let url = try InteropServers.url("SLUICE_NGINX_URL").appendingPathComponent("validate/modified.json")
        #expect(try await sources(url) == [.network, .revalidated, .revalidated])
    }

    @Test func nginxMaxAgeIsServedFromTheCache() async throws {
        let url = try InteropServers.url("SLUICE_NGINX_URL").appendingPathComponent("small.json")
        #expect(try await sources(url) == [.network, .cache, .cache])
        let cached = try await pipeline.send(HTTPRequest(url: url))
        #expect(cached.headers["Age"] != nil && cached.headers["ETag"] != nil)
    }

    @Test func httpbinsUnquotedETagRevalidates() async throws {
        let url = try InteropServers.url("SLUICE_HTTPBIN_URL").appendingPathComponent("etag/sluice-tag")
        #expect(try await sources(url) == [.network, .revalidated, .revalidated])
    }

    @Test func httpbinsCacheEndpointAnswers304ToTheConditionalRequest() async throws {
        let url = try InteropServers.url("SLUICE_HTTPBIN_URL").appendingPathComponent("cache")
        #expect(try await sources(url, times: 2) == [.network, .revalidated])
    }
}
