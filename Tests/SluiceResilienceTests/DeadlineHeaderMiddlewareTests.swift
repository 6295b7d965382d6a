import Foundation
import Sluice
import SluiceCurl
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceResilience

/// The call's deadline, sent to a real server on 127.0.0.1 in the field the caller names.
@Suite("DeadlineHeaderMiddleware", .timeLimit(.minutes(1)))
struct DeadlineHeaderMiddlewareTests {
    @Test func eachAttemptCarriesTheTimeItHasLeftAndACallWithoutADeadlineNone() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 503, body: "busy"), .init(status: 200, body: "ok"), .init(status: 200, body: "ok"))
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(1)))))
        builder.add(DeadlineHeaderMiddleware())
        let client = builder.build()
        #expect(try await client.send(HTTPRequest(url: server.url("/x")), timeout: .seconds(300)).status.code == 200)
        let sent = server.requests.compactMap { $0.header("X-Request-Deadline").flatMap { Int($0) } }
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0 > 0 && $0 <= 300_000 })
        #expect(sent[1] <= sent[0])  // the retry has less left
        _ = try await client.send(HTTPRequest(url: server.url("/y")))
        #expect(server.requests.last?.header("X-Request-Deadline") == nil)
    }

    @Test func theGRPCFormatAndItsUnits() {
        #expect(DeadlineHeaderMiddleware.value(.milliseconds(2480), .grpcTimeout) == "2480m")
        #expect(DeadlineHeaderMiddleware.value(.milliseconds(2480), .milliseconds) == "2480")
        #expect(DeadlineHeaderMiddleware.value(.seconds(100_000), .grpcTimeout) == "100000S")  // past 8 digits of ms
        #expect(DeadlineHeaderMiddleware.value(.zero, .milliseconds) == "0")
    }

    @Test func aFieldNameNoRequestMayCarryIsRefusedBeforeAnythingIsSent() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        let client = Client(
            transport: transport, middlewares: [DeadlineHeaderMiddleware(configuration: .init(fieldName: "Bad Name"))],
            configuration: .init(timeout: .seconds(300)))
        // The message is the one HTTPFields gives for that name, whole.
        var fields = HTTPFields()
        let expected = #expect(throws: SluiceError.self) { try fields.set(name: "Bad Name", value: "1") }
        await #expect { _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/x")!)) } throws: {
            ($0 as? SluiceError)?.code == .invalidHeader && ($0 as? SluiceError)?.stage == .middleware(DeadlineHeaderMiddleware.self)
                && ($0 as? SluiceError)?.message == expected?.message && expected?.message.contains("Bad Name") == true
        }
        #expect(transport.requests.isEmpty)
    }
}
