import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceLogging

/// Issue 41, item 8: a call past its deadline ends with one error, one log level and one outcome,
/// whichever stage noticed first: the client's watchdog (which cancels the call) or the
/// transport's own timer (curl's, set from the same deadline, which throws `.timedOut`).
@Suite("One timeout story")
struct TimeoutStoryTests {
    enum FirstToNotice: String, CaseIterable {
        /// The transport waits for ever: the watchdog cancels it.
        case watchdog
        /// The transport's timer fires at the deadline, as curl's does, with curl's words.
        case transport
    }

    static func transport(_ first: FirstToNotice) -> MockTransport {
        MockTransport { _, context in
            switch first {
            case .watchdog:
                try await Task.sleep(for: .seconds(600))
            case .transport:
                try await Task.sleep(until: try #require(context.deadline), clock: .continuous)
                try? await Task.sleep(for: .milliseconds(5))
                throw SluiceError(.timedOut, "Operation timed out after 300 milliseconds with 0 bytes received", stage: .transport(MockTransport.self))
            }
            return .status(.ok)
        }
    }

    @Test(arguments: FirstToNotice.allCases)
    func aCallPastItsDeadlineIsOneStory(_ first: FirstToNotice) async throws {
        let records = Records()
        let logging = LoggingMiddleware(configuration: .init(level: .basic, sink: records.sink(), format: .jsonLines))
        let client = Client(transport: Self.transport(first), middlewares: [logging])
        let request = HTTPRequest(url: URL(string: "https://api.example.com/slow")!)
        do {
            _ = try await client.send(request, timeout: .milliseconds(300))
            Issue.record("the call returned")
        } catch let error as SluiceError {
            // The caller's error: the client's, whoever noticed.
            #expect(error.code == .timedOut)
            #expect(error.stage == .client)
            #expect(error.message.hasPrefix("GET https://api.example.com/slow did not finish within its deadline ("), "\(error.message)")
        }
        // The log: one line, failed, the deadline's words.
        let lines = records.all
        #expect(lines.count == 1)
        let line = try JSONSerialization.jsonObject(with: Data(try #require(lines.first).utf8)) as? [String: Any]
        #expect(line?["outcome"] as? String == "failed")
        let logged = line?["error"] as? [String: Any]
        #expect(logged?["code"] as? String == "timedOut" && logged?["stage"] as? String == "client")
        let message = logged?["message"] as? String ?? ""
        #expect(message.contains("GET https://api.example.com/slow did not finish within its deadline"), "\(lines)")
    }

    /// Before its deadline, a transport's own `.timedOut` (curl's request timeout, shorter than
    /// the call's) stays its own error, and a cancellation stays a cancellation.
    @Test func beforeTheDeadlineErrorsStayTheirOwn() async throws {
        let context = RequestContext(deadline: .now + .seconds(60))
        let request = HTTPRequest(url: URL(string: "https://api.example.com/slow")!)
        let own = SluiceError(.timedOut, "Operation timed out", stage: .transport(MockTransport.self))
        #expect((context.recorded(own, for: request) as? SluiceError)?.stage == .transport(MockTransport.self))
        #expect(context.recorded(CancellationError(), for: request) is CancellationError)
        let past = RequestContext(deadline: .now - .seconds(1))
        #expect((past.recorded(CancellationError(), for: request) as? SluiceError)?.code == .timedOut)
        #expect((past.recorded(SluiceError(.cannotConnect, "refused"), for: request) as? SluiceError)?.code == .cannotConnect)
    }
}
