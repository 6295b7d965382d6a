import Foundation
import HTTPBinAPI
import OpenAPIRuntime
import Sluice
import SluiceCache
import SluiceCurl
import SluiceLogging
import SluiceOpenAPI
import SluiceRetry
import Synchronization
import Testing

/// The client swift-openapi-generator wrote from openapi.yaml, over OpenAPITransport and a Sluice
/// client with the cache, retry and logging, against the httpbin `make test` starts
/// (`SLUICE_HTTPBIN_URL`).
@Suite struct GeneratedClientTests {
    /// What the chain did: each log line, and each request that went below the cache and retry
    /// (so a cache hit adds none and a retry adds one per attempt).
    final class Seen: Sendable {
        let lines = Mutex<[String]>([])
        let sent = Mutex<[Sluice.HTTPRequest]>([])
    }

    struct Below: Middleware {
        static let defaultPosition = MiddlewarePosition.network
        let seen: Seen
        func intercept(_ request: Sluice.HTTPRequest, context: RequestContext, next: Next) async throws -> Sluice.HTTPResponse {
            seen.sent.withLock { $0.append(request) }
            return try await next(request, context)
        }
    }

    let seen = Seen()
    let api: HTTPBinAPI.Client

    init() throws {
        let httpbin = try #require(ProcessInfo.processInfo.environment["SLUICE_HTTPBIN_URL"].flatMap(URL.init(string:)), "run through make test")
        var builder = Sluice.Client.Builder(transport: CurlTransport())
        builder.configuration.baseURL = httpbin
        builder.add(CacheMiddleware(store: MemoryCacheStore()))
        builder.add(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(maximumAttempts: 3, baseDelay: .milliseconds(10)))))
        builder.add(LoggingMiddleware(level: .basic, sink: .closure { [seen] line in seen.lines.withLock { $0.append(line) } }))
        builder.add(Below(seen: seen))
        api = HTTPBinAPI.Client(serverURL: try Servers.Server1.url(), transport: OpenAPITransport(client: builder.build()))
    }

    @Test func aGetSendsItsQueryAndEveryStageNamesTheOperation() async throws {
        let echo = try await api.getAnything(query: .init(q: "a b&c")).ok.body.json
        #expect(echo.args.additionalProperties["q"] == "a b&c")
        #expect(echo.headers.additionalProperties["Accept"] == "application/json")
        #expect(seen.sent.withLock { $0.map(\.operationName) } == ["getAnything"])
        let line = try #require(seen.lines.withLock { $0.first })
        #expect(line.hasPrefix("GET \(echo.url)"))
        #expect(line.contains(" (getAnything) -> 200 OK, "))
    }

    @Test func aPostSendsItsBodyAsJSON() async throws {
        let echo = try await api.postNote(body: .json(.init(title: "Hello", draft: true))).ok.body.json
        #expect(echo.json == .init(title: "Hello", draft: true))
        #expect(echo.headers.additionalProperties["Content-Type"] == "application/json; charset=utf-8")
        #expect(seen.sent.withLock { $0.map(\.method) } == [.post])
    }

    @Test func aSecondCacheableCallIsAnsweredByTheCache() async throws {
        let first = try await api.getCacheable(path: .init(seconds: 60)).ok.body.json
        let second = try await api.getCacheable(path: .init(seconds: 60)).ok.body.json
        #expect(first == second)
        #expect(seen.sent.withLock { $0.count } == 1)
        #expect(seen.lines.withLock { $0.last?.hasSuffix(", cache, cache hit") } == true)
    }

    @Test func aServerErrorIsRetriedThenComesBackAsTheDocumentedDefault() async throws {
        guard case .default(let status, _) = try await api.getStatus(path: .init(code: 503)) else {
            Issue.record("503 did not come back as the default response")
            return
        }
        #expect(status == 503)
        #expect(seen.sent.withLock { $0.count } == 3)
        if case .noContent = try await api.getStatus(path: .init(code: 204)) {} else { Issue.record("204 was not .noContent") }
    }

    @Test func bodiesOfKnownAndUnknownLengthStream() async throws {
        let bytes = try await api.getBytes(path: .init(count: 70_000)).ok.body.binary
        #expect(bytes.length == .known(70_000))
        #expect(try await Data(collecting: bytes, upTo: 1 << 20).count == 70_000)

        let streamed = try await api.streamBytes(path: .init(count: 50_000), query: .init(chunkSize: 1_000)).ok.body.binary
        #expect(streamed.length == .unknown)
        var chunks = 0, total = 0
        for try await chunk in streamed {
            chunks += 1
            total += chunk.count
        }
        #expect(total == 50_000)
        #expect(chunks > 1)
    }

    @Test func aProblemDocumentIsDecodedIntoItsType() async throws {
        let output = try await api.getProblem(query: .init(contentType: "application/problem+json", title: "Out of stock", detail: "No pens left"))
        guard case .default(let status, let answer) = output else {
            Issue.record("the problem document did not come back as the default response")
            return
        }
        let problem = try answer.body.applicationProblemJson
        #expect(status == 200)
        #expect(problem.title == "Out of stock")
        #expect(problem.detail == "No pens left")
    }

    @Test func sluicesErrorReachesTheCallerInsideClientError() async throws {
        var builder = Sluice.Client.Builder(transport: CurlTransport())
        builder.configuration.timeout = .seconds(5)
        let down = HTTPBinAPI.Client(serverURL: URL(string: "http://127.0.0.1:1")!, transport: OpenAPITransport(client: builder.build()))
        do {
            _ = try await down.getAnything(query: .init(q: "x"))
            Issue.record("a closed port answered")
        } catch let error as ClientError {
            #expect(error.operationID == "getAnything")
            let cause = try #require(error.underlyingError as? SluiceError)
            #expect(cause.code == .cannotConnect)
        }
    }
}
