import Foundation
import Sluice
import SluiceHUD
import SluiceTestSupport
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A clock moved by hand: `sleep` parks until `advance` passes its deadline; cancellation ends
/// the sleep at once with `CancellationError`, as `Task.sleep` does.
final class ManualClock: Sendable {
    private struct Sleeper {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        var cancellations = 0
    }

    private let state = Locked(State())
    /// The instant the clock starts from.
    private let start = ContinuousClock.now

    /// The time now on this clock, for `ActivityTracker.Configuration.now`.
    var instant: ContinuousClock.Instant { start + state.withLock { $0.now } }

    /// A tracker configuration that sleeps and reads the time on this clock.
    var trackerConfiguration: ActivityTracker.Configuration {
        .init(sleep: { try await self.sleep($0) }, now: { self.instant })
    }

    var pending: Int { state.withLock { $0.sleepers.count } }
    /// Sleeps ended by cancellation, parked or not.
    var cancellations: Int { state.withLock { $0.cancellations } }

    func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled {
                        state.cancellations += 1
                        return true
                    }
                    state.sleepers[id] = Sleeper(deadline: state.now + duration, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                let sleeper = state.sleepers.removeValue(forKey: id)
                if sleeper != nil { state.cancellations += 1 }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for key in due.keys { state.sleepers.removeValue(forKey: key) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (in real time, up to 60 s) until `count` sleeps are parked.
    func waitForSleepers(_ count: Int) async throws {
        let limit = ContinuousClock.now + TestTiming.scaled(.seconds(60))
        while pending != count {
            guard ContinuousClock.now < limit else {
                Issue.record("expected \(count) parked sleeps, have \(pending)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// Waits (in real time, up to 60 s: a loaded machine is slow, a passing test is not) for a
/// condition another task sets.
func eventually(_ condition: () -> Bool) async throws -> Bool {
    let limit = ContinuousClock.now + TestTiming.scaled(.seconds(60))
    while !condition() {
        guard ContinuousClock.now < limit else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}

@Suite(.timeLimit(.minutes(2))) struct ActivityTrackerTests {
    func tracker(_ clock: ManualClock) -> ActivityTracker {
        ActivityTracker(configuration: clock.trackerConfiguration)
    }

    @Test func defaultsAreAFNetworkingsDelayAndLinger() {
        #expect(ActivityTracker.Configuration.default.showDelay == .seconds(1))
        #expect(ActivityTracker.Configuration.default.linger == .milliseconds(170))
    }

    @Test func aRequestShorterThanTheDelayNeverShows() async throws {
        let clock = ManualClock()
        let tracker = tracker(clock)
        tracker.begin()
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(999))
        tracker.end()
        #expect(clock.pending == 1)  // the show timer sleeps on: an end starts and cancels nothing
        clock.advance(by: .milliseconds(1))
        try await clock.waitForSleepers(0)  // it woke, found nothing in flight, and stopped
        #expect(!tracker.isActive)
        #expect(tracker.inFlight == 0)
        clock.advance(by: .seconds(5))
        #expect(clock.pending == 0)
        #expect(!tracker.isActive)
        #expect(clock.cancellations == 0)
    }

    @Test func manyShortRequestsShareOneTimer() async throws {
        let clock = ManualClock()
        let tracker = tracker(clock)
        for _ in 0..<100 {
            tracker.begin()
            tracker.end()
        }
        try await clock.waitForSleepers(1)
        #expect(clock.pending == 1)  // one timer for the whole burst, not one per request
        clock.advance(by: .seconds(1))
        try await clock.waitForSleepers(0)
        #expect(!tracker.isActive)
    }

    @Test func activityThatRestartsWaitsTheWholeDelayFromItsOwnStart() async throws {
        let clock = ManualClock()
        let tracker = tracker(clock)
        var changes = tracker.changes.makeAsyncIterator()
        tracker.begin()
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(600))
        tracker.end()
        tracker.begin()  // a new activity at 0.6 s: it may show at 1.6 s, not at 1 s
        clock.advance(by: .milliseconds(400))
        try await clock.waitForSleepers(1)  // the timer woke at 1 s and sleeps the 0.6 s left
        #expect(!tracker.isActive)
        clock.advance(by: .milliseconds(599))
        #expect(!tracker.isActive)
        clock.advance(by: .milliseconds(1))
        #expect(await changes.next() == true)
    }

    @Test func showsAfterTheDelayAndHidesAfterTheLinger() async throws {
        let clock = ManualClock()
        let tracker = tracker(clock)
        var changes = tracker.changes.makeAsyncIterator()
        tracker.begin()
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(999))
        #expect(!tracker.isActive)
        clock.advance(by: .milliseconds(1))
        #expect(await changes.next() == true)
        #expect(tracker.isActive)

        tracker.end()
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(169))
        #expect(tracker.isActive)  // still lingering
        clock.advance(by: .milliseconds(1))
        #expect(await changes.next() == false)
        #expect(!tracker.isActive)
    }

    @Test func aRequestDuringTheLingerKeepsItShowingWithoutAFlicker() async throws {
        let clock = ManualClock()
        let tracker = tracker(clock)
        var changes = tracker.changes.makeAsyncIterator()
        tracker.begin()
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(await changes.next() == true)

        tracker.end()
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        tracker.begin()  // within the linger: the hide is called off
        clock.advance(by: .seconds(10))
        try await clock.waitForSleepers(0)  // the linger timer woke, found a request, and stopped
        #expect(tracker.isActive)
        tracker.end()
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(170))
        #expect(await changes.next() == false)  // the next change is the hide: no false/true blip
    }

    @Test func overlappingRequestsCountAsOneActivity() async throws {
        let clock = ManualClock()
        let tracker = tracker(clock)
        tracker.begin()
        tracker.begin()
        tracker.begin()
        #expect(tracker.inFlight == 3)
        try await clock.waitForSleepers(1)  // one timer, not three
        clock.advance(by: .seconds(1))
        #expect(try await eventually { tracker.isActive })
        tracker.end()
        tracker.end()
        #expect(clock.pending == 0)  // still one in flight: no linger yet
        tracker.end()
        tracker.end()  // an extra end is ignored
        #expect(tracker.inFlight == 0)
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(170))
        #expect(try await eventually { !tracker.isActive })
    }
}

/// Records every presenter call in order.
final class RecordingPresenter: HUDPresenter {
    enum Call: Equatable, Sendable {
        case show(String?)
        case update(Int64)
        case dismiss
    }

    private let log = Locked<[Call]>([])
    var calls: [Call] { log.withLock { $0 } }

    func show(tip: String?) async {
        log.withLock { $0.append(.show(tip)) }
        await Task.yield()  // give a racing dismiss every chance to overtake
    }

    func update(progress: TransferProgress) async {
        log.withLock { $0.append(.update(progress.completedBytes)) }
    }

    func dismiss() async {
        await Task.yield()
        log.withLock { $0.append(.dismiss) }
    }
}
