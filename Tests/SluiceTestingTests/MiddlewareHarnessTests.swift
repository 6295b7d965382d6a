import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite("MiddlewareHarness")
struct MiddlewareHarnessTests {
    @Test func runsOneMiddlewareAndShowsWhatItForwarded() async throws {
        let harness = MiddlewareHarness(AddHeader(), replies: [.status(.ok, body: "done")])
        let response = try await harness.send(HTTPRequest(url: URL(string: "https://example.com")!))
        #expect(response.text == "done")
        #expect(harness.forwarded.map { $0.headers["X-Added"] } == ["yes"])
        #expect(harness.forwardedBodies == [Data()])
    }

    @Test func transportErrorsAreAttributedLikeInAPipeline() async throws {
        let harness = MiddlewareHarness(AddHeader()) { _, _ in .error(SluiceError(.cannotConnect, "refused")) }
        await #expect {
            try await harness.send(HTTPRequest(url: URL(string: "https://example.com")!))
        } throws: { error in
            (error as? SluiceError)?.stage == .transport(MockTransport.self)
        }
    }
}
