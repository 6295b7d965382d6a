import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// Work the test lets finish: `run` counts a start and waits until `finish()`; it stops with
/// `CancellationError` when its task is cancelled.
final class HeldWork: Sendable {
    private let state = Locked((runs: 0, finished: false))
    var runs: Int { state.withLock { $0.runs } }

    func run(answer: Int = 42) async throws -> Int {
        state.withLock { $0.runs += 1 }
        while !state.withLock({ $0.finished }) {
            try await Task.sleep(for: .milliseconds(2))
        }
        return answer
    }

    func finish() { state.withLock { $0.finished = true } }
}

struct Failed: Error, Equatable {}

@Suite("SingleFlight", .timeLimit(.minutes(2)))
struct SingleFlightTests {
    @Test func tenCallersShareOneRun() async throws {
        let flight = SingleFlight<String, Int>()
        let work = HeldWork()
        let leader = Task { try await flight.run("k") { try await work.run() } }
        try await Wait.until("the leader runs") { work.runs == 1 }
        let followers = (0..<9).map { _ in Task { try await flight.run("k") { try await work.run(answer: -1) } } }
        try await Wait.until("nine callers wait") { flight.waiters(for: "k") == 9 }
        work.finish()
        #expect(try await leader.value == 42)
        for follower in followers { #expect(try await follower.value == 42) }
        #expect(work.runs == 1)
        #expect(flight.waiters(for: "k") == nil)
    }

    @Test func otherKeysRunOnTheirOwn() async throws {
        let flight = SingleFlight<String, Int>()
        let work = HeldWork()
        let first = Task { try await flight.run("a") { try await work.run(answer: 1) } }
        let second = Task { try await flight.run("b") { try await work.run(answer: 2) } }
        try await Wait.until("both keys run") { work.runs == 2 }
        #expect(flight.waiters(for: "a") == 0 && flight.waiters(for: "b") == 0)
        work.finish()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
    }

    @Test func aCancelledWaiterStopsAloneAndTheRunGoesOn() async throws {
        let flight = SingleFlight<String, Int>()
        let work = HeldWork()
        let leader = Task { try await flight.run("k") { try await work.run() } }
        try await Wait.until("the leader runs") { work.runs == 1 }
        let waiter = Task { try await flight.run("k") { try await work.run(answer: -1) } }
        try await Wait.until("one caller waits") { flight.waiters(for: "k") == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(flight.waiters(for: "k") == 0)
        work.finish()
        #expect(try await leader.value == 42)
        #expect(work.runs == 1)
    }

    @Test func aCancelledLeaderHandsTheWorkToAWaiter() async throws {
        let flight = SingleFlight<String, Int>()
        let work = HeldWork()
        let leader = Task { try await flight.run("k") { try await work.run() } }
        try await Wait.until("the leader runs") { work.runs == 1 }
        let waiter = Task { try await flight.run("k") { try await work.run(answer: 7) } }
        try await Wait.until("one caller waits") { flight.waiters(for: "k") == 1 }
        leader.cancel()
        await #expect(throws: CancellationError.self) { try await leader.value }
        try await Wait.until("the waiter runs the work itself") { work.runs == 2 }
        work.finish()
        #expect(try await waiter.value == 7)
    }

    @Test func anErrorReachesEveryCaller() async throws {
        let flight = SingleFlight<String, Int>()
        let work = HeldWork()
        let leader = Task {
            try await flight.run("k") {
                _ = try await work.run(); throw Failed()
            }
        }
        try await Wait.until("the leader runs") { work.runs == 1 }
        let waiter = Task { try await flight.run("k") { try await work.run(answer: -1) } }
        try await Wait.until("one caller waits") { flight.waiters(for: "k") == 1 }
        work.finish()
        await #expect(throws: Failed()) { try await leader.value }
        await #expect(throws: Failed()) { try await waiter.value }
        #expect(work.runs == 1)
    }

    @Test func afterARunTheNextCallerStartsAfresh() async throws {
        let flight = SingleFlight<String, Int>()
        let work = HeldWork()
        work.finish()
        #expect(try await flight.run("k") { try await work.run(answer: 1) } == 1)
        #expect(try await flight.run("k") { try await work.run(answer: 2) } == 2)
        #expect(work.runs == 2)
    }
}
