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

    /// Waits (in real time, up to 20 s) until `count` sleeps have been cancelled: an event that
    /// must happen, where a count of parked sleeps can pass for a moment by chance.
    func waitForCancellations(_ count: Int) async throws {
        try await Wait.until("\(count) sleeps are cancelled (\(cancellations) so far)", timeout: TestTiming.scaled(.seconds(20))) {
            cancellations >= count
        }
    }

    /// Waits (in real time, up to 20 s) until `count` sleeps are parked.
    func waitForSleepers(_ count: Int) async throws {
        let limit = ContinuousClock.now + TestTiming.scaled(.seconds(20))
        while pending != count {
            guard ContinuousClock.now < limit else {
                Issue.record("expected \(count) parked sleeps, have \(pending)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// Waits (in real time, up to 20 s: a loaded machine is slow, a passing test is not) for a
/// condition another task sets.
func eventually(_ condition: () -> Bool) async throws -> Bool {
    let limit = ContinuousClock.now + TestTiming.scaled(.seconds(20))
    while !condition() {
        guard ContinuousClock.now < limit else { return false }
        try await Task.sleep(for: .milliseconds(1))
    }
    return true
}

@Suite(.timeLimit(.minutes(2))) struct ActivityTrackerTests {
    func tracker(_ clock: ManualClock) -> ActivityTracker {
        ActivityTracker(configuration: .init(sleep: { try await clock.sleep($0) }))
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
        try await clock.waitForCancellations(1)  // the show timer was cancelled; it never showed, so no linger
        #expect(clock.pending == 0)
        clock.advance(by: .seconds(5))
        #expect(!tracker.isActive)
        #expect(tracker.inFlight == 0)
        #expect(clock.pending == 0)
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
        tracker.begin()  // within the linger: cancels the hide
        try await clock.waitForCancellations(1)
        #expect(clock.pending == 0)
        clock.advance(by: .seconds(10))
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

@Suite(.timeLimit(.minutes(2))) struct HUDMiddlewareTests {
    let url = URL(string: "https://example.com/orders")!

    @Test func showsTheTipForwardsProgressAndDismissesInOrder() async throws {
        let clock = ManualClock()
        let tracker = ActivityTracker(configuration: .init(sleep: { try await clock.sleep($0) }))
        let presenter = RecordingPresenter()
        let gate = AsyncStream<Void>.makeStream()
        let harness = MiddlewareHarness(HUDMiddleware(presenter: presenter, tracker: tracker)) { _, context in
            var iterator = gate.stream.makeAsyncIterator()
            await iterator.next()
            context.progress?(TransferProgress(direction: .download, completedBytes: 512, totalBytes: 1_024))
            context.progress?(TransferProgress(direction: .download, completedBytes: 1_024, totalBytes: 1_024))
            return .status(.ok)
        }
        var request = HTTPRequest(url: url)
        request.hudTip = "Loading your orders…"
        let reported = Locked<[Int64]>([])
        let context = RequestContext(progress: { progress in reported.withLock { $0.append(progress.completedBytes) } })
        let call = Task { try await harness.send(request, context: context) }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(try await eventually { presenter.calls == [.show("Loading your orders…")] })
        gate.continuation.yield()
        _ = try await call.value
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(170))
        #expect(try await eventually { presenter.calls.count == 4 })
        #expect(presenter.calls == [.show("Loading your orders…"), .update(512), .update(1_024), .dismiss])
        #expect(reported.withLock { $0 } == [512, 1_024])  // the caller's own progress sink still gets it
    }

    @Test func aFastRequestNeverReachesThePresenter() async throws {
        let clock = ManualClock()
        let tracker = ActivityTracker(configuration: .init(sleep: { try await clock.sleep($0) }))
        let presenter = RecordingPresenter()
        let harness = MiddlewareHarness(HUDMiddleware(presenter: presenter, tracker: tracker)) { _, context in
            context.progress?(TransferProgress(direction: .download, completedBytes: 10, totalBytes: 10))
            return .status(.ok)
        }
        _ = try await harness.send(HTTPRequest(url: url))
        try await clock.waitForCancellations(1)  // the show timer, cancelled when the request ended
        #expect(clock.pending == 0)
        clock.advance(by: .seconds(5))
        #expect(presenter.calls.isEmpty)
        #expect(tracker.inFlight == 0)
    }

    @Test func perRequestOptOutAndOptIn() async throws {
        let tracker = ActivityTracker()
        let seen = Locked<[Int]>([])
        let optedIn = HUDMiddleware(presenter: RecordingPresenter(), tracker: tracker, configuration: .init(showsByDefault: false))
        let harness = MiddlewareHarness(optedIn) { _, _ in
            seen.withLock { $0.append(tracker.inFlight) }
            return .status(.ok)
        }
        _ = try await harness.send(HTTPRequest(url: url))  // off by default here
        var request = HTTPRequest(url: url)
        request.showsHUD = true
        _ = try await harness.send(request)
        let optedOut = MiddlewareHarness(HUDMiddleware(presenter: RecordingPresenter(), tracker: tracker)) { _, _ in
            seen.withLock { $0.append(tracker.inFlight) }
            return .status(.ok)
        }
        request.showsHUD = false
        _ = try await optedOut.send(request)
        #expect(seen.withLock { $0 } == [0, 1, 0])
        #expect(tracker.inFlight == 0)
    }

    @Test func aFailedRequestStillEndsItsActivity() async throws {
        let tracker = ActivityTracker()
        let harness = MiddlewareHarness(
            HUDMiddleware(presenter: RecordingPresenter(), tracker: tracker),
            transport: .failing(with: SluiceError(.timedOut, "slow")))
        await #expect(throws: SluiceError.self) { try await harness.send(HTTPRequest(url: url)) }
        #expect(tracker.inFlight == 0)
    }

    @Test func presenterCallsStayInOrderUnder100ConcurrentRequests() async throws {
        // No delay and no linger, so the HUD flips as soon as activity starts and stops. Each round
        // holds 100 concurrent requests at a gate until the HUD is up, so every round shows once.
        let tracker = ActivityTracker(configuration: .init(showDelay: .zero, linger: .zero))
        let presenter = RecordingPresenter()
        let gate = Gate()
        let harness = MiddlewareHarness(HUDMiddleware(presenter: presenter, tracker: tracker)) { _, context in
            await gate.wait()
            try await Task.sleep(for: .microseconds(Int.random(in: 0...2_000)))
            context.progress?(TransferProgress(direction: .download, completedBytes: 1, totalBytes: 1))
            return .status(.ok)
        }
        let rounds = 5
        func shows() -> Int { presenter.calls.filter { if case .show = $0 { true } else { false } }.count }
        for round in 0..<rounds {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        var request = HTTPRequest(url: url)
                        request.hudTip = "request \(index)"
                        _ = try await harness.send(request)
                    }
                }
                // Open only once the presenter has shown: progress sent before `show` is dropped by design.
                #expect(try await eventually { tracker.inFlight == 100 && shows() == round + 1 })
                gate.open()
                try await group.waitForAll()
            }
            #expect(try await eventually { !tracker.isActive && presenter.calls.last == .dismiss })
            gate.close()
        }
        let calls = presenter.calls
        var showing = false
        var shows = 0, updates = 0
        for (index, call) in calls.enumerated() {
            switch call {
            case .show:
                #expect(!showing, "a second show without a dismiss at call \(index)")
                showing = true
                shows += 1
            case .update:
                #expect(showing, "an update outside show…dismiss at call \(index)")
                updates += 1
            case .dismiss:
                #expect(showing, "a dismiss before its show at call \(index)")
                showing = false
            }
        }
        #expect(!showing)
        #expect(shows == rounds)
        #expect(updates == rounds * 100)  // every request's progress, none dropped
    }
}

/// Holds callers until opened; `close` makes later callers wait again.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state -> Bool in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func close() { state.withLock { $0.isOpen = false } }
}

@Suite struct TerminalHUDTests {
    @Test func drawsTheSpinnerTipAndBarOnATerminal() async throws {
        // posix_openpt, grantpt and unlockpt by hand (Glibc's module map hides them): the
        // multiplexer, unlock the pair (TIOCSPTLCK, _IOW('T', 0x31, int)), ask its number (TIOCGPTN,
        // _IOR('T', 0x30, unsigned int)); the macros do not reach Swift, their Linux values do.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        try #require(ioctl(master, 0x4004_5431 as UInt, &unlock) == 0)
        var number: UInt32 = 0
        try #require(ioctl(master, 0x8004_5430 as UInt, &number) == 0)
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        defer { close(slave) }

        let hud = TerminalHUD(descriptor: slave)
        #expect(hud.isTerminal)
        await hud.show(tip: "Fetching")
        await hud.update(progress: TransferProgress(direction: .download, completedBytes: 524_288, totalBytes: 1_048_576))
        await hud.dismiss()

        let output = readAvailable(master)
        #expect(output.hasPrefix("\r⠋ Fetching\u{1B}[K\r⠙ Fetching [##########          ] 512 KB / 1.0 MB, "))
        #expect(output.contains("/s"))
        #expect(output.hasSuffix("\r\u{1B}[K"))
    }

    @Test func writesNothingIntoAPipe() async throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let hud = TerminalHUD(descriptor: fds[1])
        #expect(!hud.isTerminal)
        await hud.show(tip: "Fetching")
        await hud.update(progress: TransferProgress(direction: .upload, completedBytes: 1, totalBytes: 2))
        await hud.dismiss()
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(read(fds[0], &buffer, buffer.count) == 0)  // end of file: not one byte written
        close(fds[0])
    }

    @Test func theBarShowsBytesTotalRateAndTimeLeft() {
        let half = TransferProgress(direction: .download, completedBytes: 1_048_576, totalBytes: 2_097_152)
        #expect(
            TerminalHUD.describe(half, elapsed: .seconds(1))
                == "[##########          ] 1.0 MB / 2.0 MB, 1.0 MB/s, 1 s left")
        let unknown = TransferProgress(direction: .download, completedBytes: 2_048, totalBytes: nil)
        #expect(TerminalHUD.describe(unknown, elapsed: .seconds(2)) == "2 KB, 1 KB/s")
        let started = TransferProgress(direction: .upload, completedBytes: 0, totalBytes: 100)
        #expect(TerminalHUD.describe(started, elapsed: .zero) == "[                    ] 0 B / 100 B, 0 B/s")
    }

    func readAvailable(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) == 1 else { break }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
