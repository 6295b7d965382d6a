import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceTesting's public numbers driven with every hostile value of ``CallerNumbers``: the mock
/// server holds sizes to at least 0 or 1 and waits to 0...100 years, and nothing traps or hangs.
@Suite("Caller numbers: SluiceTesting", .timeLimit(.minutes(1)))
struct TestingCallerNumbersTests {
    static let body = "0123456789"

    /// The body through curl, or the error a fault makes.
    static func fetch(_ response: MockWebServer.Response, recordedBodyLimit: Int = .max) async throws -> Result<HTTPResponse, any Error> {
        let server = try MockWebServer(recordedBodyLimit: recordedBodyLimit)
        server.setHandler { _ in response }
        let client = Client(transport: CurlTransport())
        return await Result { try await client.send(HTTPRequest(method: .post, url: server.url("/x"), body: .bytes(Data("sent".utf8))), timeout: .seconds(30)) }
    }

    @Test(
        .covers(
            "MockWebServer.Response.chunkSize", "MockWebServer.Response.throttle", "MockWebServer.Response.with(throttle:every:) throttle",
            "MockWebServer.Response.stall", "MockWebServer.Response.with(stallAfter:until:) stallAfter",
            "MockWebServer.Response.Fault.disconnectAfterBodyBytes(_:)", "MockWebServer.init(recordedBodyLimit:) recordedBodyLimit",
            "MockWebServer.Response.status"),
        arguments: CallerNumbers.ints)
    func sizes(_ number: Int) async throws {
        let plain = MockWebServer.Response(status: 200, body: Self.body)
        #expect(try await Self.fetch(MockWebServer.Response(status: 200, body: Data(Self.body.utf8), chunkSize: number)).get().text == Self.body)
        #expect(try await Self.fetch(plain.with(throttle: number, every: .milliseconds(1))).get().text == Self.body)
        let gate = TestGate()
        gate.open()
        #expect(try await Self.fetch(plain.with(stallAfter: number, until: gate)).get().text == Self.body)
        var cut = plain
        cut.fault = .disconnectAfterBodyBytes(number)
        let outcome = try await Self.fetch(cut)
        if number >= Self.body.count {
            #expect(try outcome.get().text == Self.body)
        } else {
            #expect { try outcome.get() } throws: { [.connectionLost, .invalidResponse].contains(($0 as? SluiceError)?.code) }
        }
        let server = try MockWebServer(recordedBodyLimit: number)
        #expect(server.recordedBodyLimit == max(0, number))
        // Any status is written as given; curl refuses what is no HTTP status.
        let status = try await Self.fetch(MockWebServer.Response(status: number, body: Self.body))
        if (200...599).contains(number) { #expect(try status.get().status.code == number) }
    }

    @Test(
        .covers(
            "MockWebServer.Response.headersDelay", "MockWebServer.Response.with(headersDelay:) headersDelay",
            "MockWebServer.Response.with(throttle:every:) every", "MockTransport.Configuration.latency", "TestGate.wait(timeout:) timeout"),
        arguments: CallerNumbers.durations)
    func waits(_ duration: Duration) async throws {
        let short = duration < .seconds(1)
        let plain = MockWebServer.Response(status: 200, body: Self.body)
        if short {
            #expect(try await Self.fetch(plain.with(headersDelay: duration)).get().text == Self.body)
            #expect(try await Self.fetch(plain.with(throttle: 5, every: duration)).get().text == Self.body)
        }
        #expect(plain.with(headersDelay: duration).headersDelay == duration)
        // A body in one piece never pauses, whatever the interval.
        #expect(try await Self.fetch(plain.with(throttle: 100, every: duration)).get().text == Self.body)
        if short {
            let transport = MockTransport(configuration: .init(latency: duration)) { _, _ in .status(.ok) }
            #expect(try await Client(transport: transport).get("https://api.example.com/x").status == .ok)
        }
        // A gate already open lets any wait through; a closed one times out at once for zero or less.
        let gate = TestGate()
        if duration <= .zero { #expect(gate.wait(timeout: duration) == false) }
        gate.open()
        #expect(gate.wait(timeout: duration))
    }
}
