import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("CurlTransport streaming response bodies", .timeLimit(.minutes(2)))
struct CurlTransportStreamingTests {
    let server: MockWebServer
    let client: Client

    init() throws {
        server = try MockWebServer()
        client = Client(transport: CurlTransport())
    }

    @Test func theHeadComesBackBeforeTheBodyAndTheBodyArrivesWhole() async throws {
        let gate = TestGate()
        let body = Data((0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.enqueue(
            MockWebServer.Response(status: 200, headers: [("Content-Type", "application/octet-stream")], body: body).with(stallAfter: 1_000, until: gate))
        // The server holds all but the first 1,000 bytes: the call returns anyway, with the head.
        let response = try await client.stream(HTTPRequest(url: server.url("/big")))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/octet-stream")
        #expect(response.body.isEmpty)
        let stream = try #require(response.bodyStream)
        var received = Data()
        var iterator = stream.makeAsyncIterator()
        while received.count < 1_000, let chunk = try await iterator.next() { received.append(chunk) }
        #expect(received.count == 1_000)
        gate.open()
        while let chunk = try await iterator.next() { received.append(chunk) }
        #expect(received == body)
    }

    @Test func leavingEarlyEndsTheTransferAndTheConnectionIsNotReusedHalfRead() async throws {
        server.setHandler { request in
            request.target == "/big" ? .init(status: 200, body: Data(count: 8 << 20)) : .init(status: 200, body: "small")
        }
        do {
            let response = try await client.stream(HTTPRequest(url: server.url("/big")))
            var iterator = response.bodyStream!.makeAsyncIterator()
            _ = try await iterator.next()
        }
        // The next call works, on a fresh connection: the half-read one was closed.
        let next = try await client.get("\(server.url("/small"))")
        #expect(next.text == "small")
        #expect(Set(server.requests.map(\.connection)).count == 2)
    }

    @Test func aFailureMidBodyIsThrownByTheStreamNotLost() async throws {
        server.enqueue(MockWebServer.Response(status: 200, body: Data(count: 100_000)).with(fault: .disconnectAfterBodyBytes(10_000)))
        let response = try await client.stream(HTTPRequest(url: server.url("/cut")))
        await #expect {
            _ = try await response.bodyStream!.collect()
        } throws: { ($0 as? SluiceError)?.code == .connectionLost }
    }

    @Test func aHundredMegabytesReadSlowlyAddLessThan4MegabytesToTheReader() async throws {
        server.setHandler { _ in .init(status: 200, headers: [("Content-Type", "application/octet-stream")], body: Data(repeating: 0x5A, count: 100 << 20)) }
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-transfer-probe")
        process.arguments = ["stream", server.url("/huge").absoluteString, "200"]
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = "quarantine_size_mb=8:" + (environment["ASAN_OPTIONS"] ?? "")
        process.environment = environment
        let (data, status) = try await Blocking.output(of: process)
        #expect(status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        let peak = report["peakResidentKiB"] ?? .max
        let atHead = report["peakAtHeadKiB"] ?? 0
        print("100 MB streamed and read slowly: peak resident \(peak) KiB, \(atHead) KiB when the head arrived, \(report["chunks"] ?? -1) chunks")
        #expect(report["status"] == 200)
        #expect(report["bytes"] == 100 << 20)
        #expect(report["nonZero"] == 100 << 20)
        // The body (a hundred times the high-water mark) adds almost nothing to the process:
        // its chunks are read as they come and curl waits while the reader is behind. Under
        // a sanitizer (make test-tsan, make test-asan) the probe is instrumented too, and its
        // shadow memory grows what it touches (MemoryBounds); a buffered body would still be
        // 100 MB past either bound.
        #expect(peak - atHead < MemoryBounds.scaled(4 * 1024))
        #expect(peak < MemoryBounds.scaled(40 * 1024))
    }
}
