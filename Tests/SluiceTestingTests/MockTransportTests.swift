import Foundation
import Sluice
import SluiceTesting
import Testing

struct AddHeader: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        try request.headers.set(name: "X-Added", value: "yes")
        return try await next(request, context)
    }
}

@Suite("MockTransport")
struct MockTransportTests {
    let url = URL(string: "https://example.com/a")!

    @Test func queueAnswersInOrderAndRecordsRequests() async throws {
        let transport = MockTransport(replies: [.status(.created, body: "one"), .json(#"{"n":2}"#)])
        let first = try await transport.send(HTTPRequest(method: .post, url: url, body: .bytes(Data("hello".utf8))), context: RequestContext())
        let second = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        #expect(first.status == .created && first.text == "one")
        #expect(second.headers["Content-Type"] == "application/json" && second.text == #"{"n":2}"#)
        #expect(transport.requests.map(\.request.method) == [.post, .get])
        #expect(transport.requests.first?.body == Data("hello".utf8))
        #expect(first.request?.method == .post, "the response carries the request")
    }

    @Test func anEmptyQueueThrowsANamedError() async {
        let transport = MockTransport(replies: [])
        await #expect(throws: MockTransport.ExhaustedError(request: "GET https://example.com/a")) {
            try await transport.send(HTTPRequest(url: url), context: RequestContext())
        }
    }

    @Test func scriptedErrorsAreThrown() async {
        let transport = MockTransport(replies: [.error(SluiceError(.timedOut, "scripted"))])
        await #expect { try await transport.send(HTTPRequest(url: url), context: RequestContext()) } throws: { ($0 as? SluiceError)?.code == .timedOut }
    }

    @Test func enqueueAddsReplies() async throws {
        let transport = MockTransport(replies: [])
        transport.enqueue(.status(.accepted))
        #expect(try await transport.send(HTTPRequest(url: url), context: RequestContext()).status == .accepted)
    }

    @Test func handlerSeesEachRequest() async throws {
        let transport = MockTransport { request, context in
            request.url.path == "/a" ? .status(.ok, body: "attempt \(context.attempt)") : .status(.notFound)
        }
        #expect(try await transport.send(HTTPRequest(url: url), context: RequestContext()).text == "attempt 1")
        #expect(try await transport.send(HTTPRequest(url: URL(string: "https://example.com/b")!), context: RequestContext()).status == .notFound)
    }

    @Test func latencyDelaysTheReply() async throws {
        let transport = MockTransport(configuration: .init(latency: .milliseconds(30))) { _, _ in .status(.ok) }
        let start = ContinuousClock.now
        _ = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        #expect(start.duration(to: .now) >= .milliseconds(30))
    }

    @Test func recordingCanBeTurnedOff() async throws {
        let transport = MockTransport.successful(configuration: .init(recordsRequests: false))
        _ = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        #expect(transport.requests.isEmpty)
    }

    @Test func failingPresetThrowsItsError() async {
        let transport = MockTransport.failing(with: SluiceError(.dnsFailure, "no such host"))
        await #expect { try await transport.send(HTTPRequest(url: url), context: RequestContext()) } throws: { ($0 as? SluiceError)?.code == .dnsFailure }
    }
}
