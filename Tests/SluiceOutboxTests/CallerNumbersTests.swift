import Foundation
import Sluice
import SluiceOutbox
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceOutbox's public numbers driven with every hostile value of ``CallerNumbers``: an age or
/// attempt limit of 0 or less ends a stored write at its first replay, and nothing traps.
@Suite("Caller numbers: SluiceOutbox", .timeLimit(.minutes(1)))
struct OutboxCallerNumbersTests {
    static let url = URL(string: "https://api.example.com/notes")!

    /// Stores one write and replays three times against a server answering 503: how many
    /// requests went, and how many writes are still stored.
    static func replayThrice(_ configuration: Outbox.Configuration) async throws -> (sent: Int, pending: Int) {
        let folder = try TemporaryDirectory(prefix: "sluice-caller-numbers")
        let transport = MockTransport { _, _ in .status(.serviceUnavailable) }
        let outbox = try Outbox(path: folder.filePath("outbox.sqlite"), transport: transport, configuration: configuration)
        _ = try outbox.enqueue(HTTPRequest(method: .post, url: url, body: .bytes(Data("n".utf8))))
        for _ in 0..<3 { await outbox.replay() }
        return (transport.requests.count, try outbox.pendingCount())
    }

    /// A limit of 0 or less gives up before the first send; `Int.max` keeps the write.
    @Test(.covers("Outbox.Configuration.maximumAttempts"), arguments: CallerNumbers.ints)
    func attempts(_ attempts: Int) async throws {
        let (sent, pending) = try await Self.replayThrice(.init(maximumAttempts: attempts))
        #expect(sent == min(max(attempts, 0), 3))
        #expect(pending == (attempts > 3 ? 1 : 0))
    }

    /// A negative age has passed: the write expires unsent; a long one keeps it.
    @Test(.covers("Outbox.Configuration.maximumAge"), arguments: CallerNumbers.durations)
    func ages(_ age: Duration) async throws {
        let (sent, pending) = try await Self.replayThrice(.init(maximumAge: age))
        if age < .zero { #expect(sent == 0 && pending == 0) }
        if age >= .seconds(60) { #expect(sent == 3 && pending == 1) }
    }

    /// A replay timeout is held to 1 ms...100 years: whatever is passed, each write is sent, and
    /// none waits past the deadline it makes (the transport answers at once here).
    @Test(.covers("Outbox.Configuration.replayTimeout"), arguments: CallerNumbers.durations)
    func replayTimeouts(_ timeout: Duration) async throws {
        let (sent, pending) = try await Self.replayThrice(.init(replayTimeout: timeout))
        #expect(sent == 3 && pending == 1)
    }

    @Test(.covers("Outbox.Outcome.delivered(key:status:)", "Outbox.Outcome.gaveUp(key:attempts:)"), arguments: CallerNumbers.ints)
    func outcomeRecords(_ number: Int) {
        #expect(Outbox.Outcome.delivered(key: "k", status: number) != .gaveUp(key: "k", attempts: number))
        #expect(!"\(Outbox.Outcome.gaveUp(key: "k", attempts: number))".isEmpty)
    }
}
