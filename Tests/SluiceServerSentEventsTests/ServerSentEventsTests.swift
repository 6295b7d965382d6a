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

    /// `configuration` with a floor under its delay low enough for a test.
    static func quick(_ configuration: ServerSentEvents.Configuration) -> ServerSentEvents.Configuration {
        var quick = configuration
        quick.minReconnectionDelay = .milliseconds(1)
        return quick
    }

    /// Issue 27, item 6: a server's `retry: 0` never makes a reconnection storm: the wait has a
    /// floor and doubles with each reconnection in a row, up to a ceiling.
    @Test func retryZeroIsClampedAndReconnectionsBackOff() {
        let configuration = ServerSentEvents.Configuration.default
        #expect(configuration.reconnectionDelay(attempt: 1, retry: .zero) == .seconds(1))
        #expect(configuration.reconnectionDelay(attempt: 2, retry: .zero) == .seconds(2))
        #expect(configuration.reconnectionDelay(attempt: 3, retry: .milliseconds(1500)) == .seconds(6))
        #expect(configuration.reconnectionDelay(attempt: 1, retry: nil) == .seconds(3))
        #expect(configuration.reconnectionDelay(attempt: 40, retry: nil) == .seconds(60))
        #expect(configuration.reconnectionDelay(attempt: Int.max, retry: .seconds(1_000_000)) == .seconds(60))
    }

    /// Issue 27, item 6: a line that never ends, and an event whose data lines never end, stop
    /// at their limits with the request named.
    @Test func aLineOrAnEventThatNeverEndsStopsAtItsLimit() async throws {
        for (piece, message) in [
            ("x", "a line of the event stream passed the limit of 65536 bytes (ServerSentEventParser.maxLineSize)"),
            ("data: 0123456789\n", "an event's data passed the limit of 65536 bytes (ServerSentEventParser.maxEventSize) before its blank line"),
        ] {
            server.setHandler { _ in
                .raw { index in
                    index == 0
                        ? Data("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".utf8)
                        : Data(String(repeating: piece, count: 4096 / piece.utf8.count).utf8)
                }
            }
            var configuration = Self.quick(.init(reconnectionDelay: .milliseconds(5)))
            configuration.maxLineSize = 64 << 10
            configuration.maxEventSize = 64 << 10
            let request = HTTPRequest(url: server.url("/events"))
            await #expect {
                for try await _ in client.events(request, configuration: configuration) {}
            } throws: { error in
                (error as? SluiceError)?.code == .bodyTooLarge && (error as? SluiceError)?.message == "\(request): \(message)"
            }
        }
    }

    @Test func aDropReconnectsWithTheLastEventIDAndA204Stops() async throws {
        server.enqueue(
            .init(status: 200, headers: Self.eventStream, body: ": hello\n\nid: 1\ndata: one\n\nid: 2\nevent: tick\ndata: two\n\n"),
            .init(status: 200, headers: Self.eventStream, body: "retry: 10\nid: 3\ndata: three\n\n"),
            .init(status: 204, body: ""))
        var received: [ServerSentEvent] = []
        let events = client.events(HTTPRequest(url: server.url("/events")), configuration: Self.quick(.init(reconnectionDelay: .milliseconds(10))))
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
        var seen: [String] = []
        for try await event in client.events(HTTPRequest(url: server.url("/events"))) {
            seen.append(event.data)
            break
        }
        #expect(seen == ["first"])
        // The rest of the body goes to a connection the client has closed: the server's next read
        // finds it gone. A connection kept for reuse would leave it waiting.
        gate.open()
        try await Wait.until("the client closed its connection") { server.connectionsClosedByClient == 1 }
        #expect(server.requests.count == 1)
    }

    @Test func dropsWithoutAnEventPastTheLimitEndTheStreamSayingHowMany() async throws {
        // Every connection answers an empty stream: a drop without an event each time.
        server.setHandler { _ in .init(status: 200, headers: Self.eventStream, body: ": nothing\n\n") }
        let request = HTTPRequest(url: server.url("/events"))
        let events = client.events(request, configuration: Self.quick(.init(reconnectionDelay: .milliseconds(5), maxReconnections: 2)))
        await #expect {
            for try await _ in events {}
        } throws: { error in
            (error as? SluiceError)?.code == .connectionLost
                && (error as? SluiceError)?.message == "\(request): the event stream dropped 3 times in a row without an event"
        }
        #expect(server.requests.count == 3)
    }
}
