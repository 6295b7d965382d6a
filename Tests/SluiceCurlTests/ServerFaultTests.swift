import Foundation
import Sluice
import SluiceCurl
import SluiceTesting
import Testing

/// Servers that lie about their bodies, flood their heads or trickle: each ends in a clear error
/// within the configured limits, never a hang or a silent cut.
@Suite("Server faults against MockWebServer")
struct ServerFaultTests {
    let server: MockWebServer
    let transport = CurlTransport()

    init() throws {
        server = try MockWebServer()
    }

    func failure(_ path: String) async throws -> SluiceError {
        do {
            let response = try await transport.send(HTTPRequest(url: server.url(path)), context: RequestContext(deadline: .now + .seconds(30)))
            Issue.record("expected an error, got \(response)")
            throw CancellationError()
        } catch let error as SluiceError {
            return error
        }
    }

    @Test func aHundredKilobyteHeaderLineIsRefused() async throws {
        server.enqueue(.init(status: 200, headers: [("X-Huge", String(repeating: "a", count: 100 * 1024))], body: "x"))
        let error = try await failure("/huge-header")
        #expect(error.code == .invalidResponse, "\(error)")
        #expect(error.message == "GET \(server.url("/huge-header").absoluteString): the response's header section is larger than libcurl's 100 KB limit")
    }

    @Test func aBodyShorterThanItsContentLengthIsConnectionLost() async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Length", "1000")], body: Data(count: 400), closesConnection: true))
        let error = try await failure("/short")
        #expect(error.code == .connectionLost)
        #expect(error.message.contains("600 bytes remaining"), "\(error)")
    }

    @Test func aSlowlorisTrickleEndsWithinTheTimeout() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.lowSpeedLimit = (bytesPerSecond: 100, duration: .seconds(1))
        let slow = CurlTransport(configuration: configuration)
        server.enqueue(MockWebServer.Response(status: 200, body: Data(count: 5_000)).with(throttle: 1, every: .milliseconds(200)))
        let started = ContinuousClock.now
        do {
            _ = try await slow.send(HTTPRequest(url: server.url("/trickle")), context: RequestContext(deadline: .now + .seconds(30)))
            Issue.record("a 5 bytes/s trickle finished")
        } catch let error as SluiceError {
            #expect(error.code == .timedOut)
        }
        #expect(started.duration(to: .now) < .seconds(30))
    }
}
