import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 42: `Client.Configuration.prefersTransportExecutor` runs each call's chain on the event
/// thread that runs its transfer; without it a call from an ordinary task runs on the cooperative
/// pool, as its caller does.
@Suite("Where a call runs", .timeLimit(.minutes(1)))
struct ClientExecutorTests {
    /// Notes, for each call, whether its chain ran on a transport's event thread.
    struct ThreadProbe: Middleware {
        let seen: Locked<[Bool]>
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            seen.withLock { $0.append(EventThread.isCurrent) }
            return try await next(request, context)
        }
    }

    @Test(arguments: [true, false])
    func aCallRunsOnTheEventThreadOnlyWhenAskedTo(prefers: Bool) async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let seen = Locked([Bool]())
        var configuration = CurlTransport.Configuration()
        configuration.eventThreads = 2
        let client = Client(
            transport: CurlTransport(configuration: configuration), middlewares: [ThreadProbe(seen: seen)],
            configuration: .init(prefersTransportExecutor: prefers))
        for index in 0..<4 {
            let response = try await client.send(HTTPRequest(url: server.url("/\(index)")))
            #expect(response.text == "ok")
        }
        #expect(seen.withLock { $0 } == Array(repeating: prefers, count: 4))
    }
}
