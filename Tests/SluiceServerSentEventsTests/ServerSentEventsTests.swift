import Foundation
import Sluice
import SluiceCurl
import SluiceServerSentEvents
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("ServerSentEvents against MockWebServer", .timeLimit(.minutes(1)))
struct ServerSentEventsTests {
    let server: MockWebServer
    let client: Client

    init() throws {
        server = try MockWebServer()
        client = Client(transport: CurlTransport())
    }

    static let eventStream = [("Content-Type", "text/event-stream")]

    @Test func aDropReconnectsWithTheLastEventIDAndA204Stops() async throws {
        server.enqueue(
            .init(status: 200, headers: Self.eventStream, body: ": hello\n\nid: 1\ndata: one\n\nid: 2\nevent: tick\ndata: two\n\n"),
            .init(status: 200, headers: Self.eventStream, body: "retry: 10\nid: 3\ndata: three\n\n"),
            .init(status: 204, body: ""))
        var received: [ServerSentEvent] = []
        let events = client.events(HTTPRequest(url: server.url("/events")), configuration: .init(reconnectionDelay: .milliseconds(10)))
        for try await event in events { received.append(event) }
        #expect(received.map(\.data) == ["one", "two", "three"])
        #expect(received.map(\.type) == ["message", "tick", "message"])
        #expect(server.requests.map { $0.header("Last-Event-ID") } == [nil, "2", "3"])
        #expect(server.requests.allSatisfy { $0.header("Accept") == "text/event-stream" && $0.header("Cache-Control") == "no-store" })
    }

    @Test func anAnswerThatIsNotAnEventStreamEndsItWithTheReason() async throws {
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")], body: "{}"), .init(status: 503, body: "busy"))
        await #expect {
            for try await _ in client.events(HTTPRequest(url: server.url("/events"))) {}
        } throws: { error in
            (error as? SluiceError)?.code == .unacceptableContentType
                && (error as? SluiceError)?.message
                    == "GET \(server.url("/events").absoluteString) answered with Content-Type \"application/json\" instead of text/event-stream"
        }
        await #expect {
            for try await _ in client.events(HTTPRequest(url: server.url("/events"))) {}
        } throws: { ($0 as? SluiceError)?.code == .unacceptableStatus }
    }

    @Test func leavingTheLoopClosesTheConnection() async throws {
        let gate = TestGate()
        server.enqueue(
            MockWebServer.Response(status: 200, headers: Self.eventStream, body: Data("data: first\n\ndata: never read\n\n".utf8))
                .with(stallAfter: 15, until: gate))
        for try await event in client.events(HTTPRequest(url: server.url("/events"))) {
            #expect(event.data == "first")
            break
        }
        gate.open()
        #expect(server.requests.count == 1)
    }

    @Test func dropsWithoutAnEventPastTheLimitEndTheStreamSayingHowMany() async throws {
        // Every connection answers an empty stream: a drop without an event each time.
        server.setHandler { _ in .init(status: 200, headers: Self.eventStream, body: ": nothing\n\n") }
        let request = HTTPRequest(url: server.url("/events"))
        let events = client.events(request, configuration: .init(reconnectionDelay: .milliseconds(5), maxReconnections: 2))
        await #expect {
            for try await _ in events {}
        } throws: { error in
            (error as? SluiceError)?.code == .connectionLost
                && (error as? SluiceError)?.message == "\(request): the event stream dropped 3 times in a row without an event"
        }
        #expect(server.requests.count == 3)
    }
}
