import Foundation
import Sluice
import SluiceLogging
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceLogging's public numbers driven with every hostile value of ``CallerNumbers``: a body
/// limit of 0 or less shows and keeps none, any elapsed time is recorded, and nothing traps.
@Suite("Caller numbers: SluiceLogging")
struct LoggingCallerNumbersTests {
    @Test(.covers("LoggingMiddleware.Configuration.bodyLimit", "HARRecorder.Configuration.bodyLimit"), arguments: CallerNumbers.ints)
    func bodyLimits(_ limit: Int) async throws {
        let lines = Locked([String]())
        let sink = LogSink.closure { line in lines.withLock { $0.append(line) } }
        let logging = LoggingMiddleware(configuration: .init(level: .body, sink: sink, bodyLimit: limit))
        let transport = MockTransport { _, _ in .status(.ok, headers: ["Content-Type": "text/plain"], body: "response text") }
        let client = Client(transport: transport, middlewares: [logging])
        _ = try await client.post("https://api.example.com/x", body: .bytes(Data("request text".utf8)))
        let log = lines.withLock { $0.joined(separator: "\n") }
        #expect(log.contains("response text") == (limit >= 13))
        #expect(log.contains("POST https://api.example.com/x"))

        let har = HARRecorder(configuration: .init(bodyLimit: limit))
        har.record(
            request: HTTPRequest(method: .post, url: URL(string: "https://api.example.com/x")!, body: .bytes(Data("request text".utf8))),
            response: HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: Data("response text".utf8)), started: .now,
            elapsed: .milliseconds(5))
        let document = String(decoding: try har.data(), as: UTF8.self)
        #expect(document.contains("response text") == (limit >= 13))
        #expect(document.contains("cut at \(max(0, limit)) of 13 bytes") == (limit < 13))
    }

    @Test(.covers("HARRecorder.record(request:response:started:elapsed:) elapsed"), arguments: CallerNumbers.durations)
    func harElapsed(_ elapsed: Duration) throws {
        let har = HARRecorder()
        har.record(request: HTTPRequest(url: URL(string: "https://api.example.com/x")!), response: HTTPResponse(status: .ok), started: .now, elapsed: elapsed)
        let document = try JSONSerialization.jsonObject(with: try har.data()) as? [String: Any]
        #expect(document?["log"] != nil)
    }

    /// A descriptor that is not open, or not a descriptor at all, writes nowhere: no trap, no
    /// error thrown into the call.
    @Test(.covers("LogSink.descriptor(_:) fd"), arguments: CallerNumbers.int32s)
    func descriptors(_ fd: Int32) async throws {
        guard fd != 1 else { return }  // standard output: the test run's own
        let logging = LoggingMiddleware(level: .basic, sink: .descriptor(fd))
        let response = try await Client(transport: MockTransport.successful(), middlewares: [logging]).get("https://api.example.com/x")
        #expect(response.status == .ok)
    }
}
