import Foundation
import Sluice
import SluiceCurl
import Testing

@Suite("CurlTransport against nginx")
struct CurlTransportNginxTests {
    let transport = CurlTransport()

    func expected(_ name: String) throws -> Data {
        // Same content nginx.sh writes.
        try Data(contentsOf: URL(fileURLWithPath: ProcessInfo.processInfo.environment["SLUICE_NGINX_ROOT"] ?? "/nonexistent").appendingPathComponent(name))
    }

    @Test func getsASmallBodyAndReusesTheConnection() async throws {
        let base = try Servers.nginx()
        let url = base.appendingPathComponent("small.json")
        let first = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        let second = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        #expect(first.status == .ok)
        #expect(first.body == (try expected("small.json")))
        #expect(first.headers["Content-Type"] == "application/json")
        #expect(first.headers["cache-control"] == "max-age=60")
        #expect(first.metrics?.reusedConnection == false)
        #expect(second.metrics?.reusedConnection == true)
        #expect(second.metrics?.httpVersion == "1.1")
        #expect(second.request?.url == url)
    }

    @Test func getsAOneMebibyteBody() async throws {
        let url = try Servers.nginx().appendingPathComponent("big.bin")
        let response = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        #expect(response.body.count == 1 << 20)
        #expect(response.body == (try expected("big.bin")))
        #expect(response.metrics?.bytesReceived == 1 << 20)
    }
}
