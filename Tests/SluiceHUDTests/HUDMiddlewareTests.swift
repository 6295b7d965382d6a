import Foundation
import Sluice
import SluiceHUD
import SluiceTestSupport
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.timeLimit(.minutes(2))) struct HUDMiddlewareTests {
    let url = URL(string: "https://example.com/orders")!

    @Test func showsTheTipForwardsProgressAndDismissesInOrder() async throws {
        let clock = ManualClock()
        let tracker = ActivityTracker(configuration: clock.trackerConfiguration)
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
        let tracker = ActivityTracker(configuration: clock.trackerConfiguration)
        let presenter = RecordingPresenter()
        let harness = MiddlewareHarness(HUDMiddleware(presenter: presenter, tracker: tracker)) { _, context in
            context.progress?(TransferProgress(direction: .download, completedBytes: 10, totalBytes: 10))
            return .status(.ok)
        }
        _ = try await harness.send(HTTPRequest(url: url))
        try await clock.waitForSleepers(1)  // the show timer, which finds nothing in flight when it wakes
        clock.advance(by: .seconds(5))
        try await clock.waitForSleepers(0)
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
        request.showsHUD = .always
        _ = try await harness.send(request)
        let optedOut = MiddlewareHarness(HUDMiddleware(presenter: RecordingPresenter(), tracker: tracker)) { _, _ in
            seen.withLock { $0.append(tracker.inFlight) }
            return .status(.ok)
        }
        request.showsHUD = .never
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
