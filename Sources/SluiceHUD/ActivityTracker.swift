import Foundation
import Sluice

/// Counts requests in flight and says when a loading indicator should show, without flicker:
/// ``isActive`` turns true only after ``Configuration/showDelay`` of continuous activity (1 s) and
/// false only after ``Configuration/linger`` of quiet (0.17 s), as AFNetworkActivityIndicatorManager
/// does. Fast requests never show anything.
///
/// A request's start and end only count and note the time, under a lock: one timer task at a time
/// wakes when the indicator may have to change and looks again, so a stream of short requests
/// starts no task, timer or thread wake-up of its own.
///
/// ```swift
/// import SluiceHUD
///
/// let tracker = ActivityTracker()
/// Task { for await active in tracker.changes { print(active ? "busy" : "idle") } }
/// ```
public final class ActivityTracker: Sendable {
    /// When the indicator shows and how long it stays.
    public struct Configuration: Sendable {
        /// How long a call runs before the indicator shows.
        public var showDelay: Duration
        /// How long the indicator stays at least, once shown.
        public var linger: Duration
        /// How the tracker waits (injectable, so tests can move time by hand).
        public var sleep: @Sendable (Duration) async throws -> Void
        /// The time now, on the clock `sleep` waits on.
        public var now: @Sendable () -> ContinuousClock.Instant

        /// Settings with each value given, or its default.
        public init(
            showDelay: Duration = .seconds(1), linger: Duration = .milliseconds(170),
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
        ) {
            self.showDelay = showDelay
            self.linger = linger
            self.sleep = sleep
            self.now = now
        }

        /// Show after 1 s, hide 0.17 s after the last request.
        public static let `default` = Configuration()
    }

    private struct State {
        var inFlight = 0
        var isActive = false
        /// When the current activity (or quiet, once `inFlight` is 0) began.
        var since: ContinuousClock.Instant?
        /// Whether a timer task is sleeping; it looks at the state again when it wakes.
        var timerRunning = false
        var subscribers: [UInt64: AsyncStream<Bool>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    /// What the timer does after a look at the state.
    private enum Step {
        case sleep(Duration)
        case settle(Bool, [AsyncStream<Bool>.Continuation])
        case stop
    }

    /// How it behaves.
    public let configuration: Configuration
    private let state = Locked(State())

    /// A tracker with `configuration`, each duration held to 0...100 years.
    public init(configuration: Configuration = .default) {
        var configuration = configuration
        configuration.showDelay = configuration.showDelay.clampedWait
        configuration.linger = configuration.linger.clampedWait
        self.configuration = configuration
    }

    /// Whether an indicator should be showing.
    public var isActive: Bool { state.withLock { $0.isActive } }

    /// Requests in flight.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// Each change of ``isActive``, in order.
    public var changes: AsyncStream<Bool> {
        AsyncStream { continuation in
            let id = state.withLock { state -> UInt64 in
                state.nextSubscriber += 1
                state.subscribers[state.nextSubscriber] = continuation
                return state.nextSubscriber
            }
            continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        }
    }

    /// A request started.
    public func begin() {
        let delay = state.withLock { state -> Duration? in
            state.inFlight += 1
            guard state.inFlight == 1 else { return nil }
            state.since = configuration.now()
            // Showing already (a linger was running): keep showing, nothing to wait for.
            return state.isActive ? nil : startTimer(&state, after: configuration.showDelay)
        }
        if let delay { runTimer(after: delay) }
    }

    /// A request ended.
    public func end() {
        let delay = state.withLock { state -> Duration? in
            guard state.inFlight > 0 else { return nil }
            state.inFlight -= 1
            guard state.inFlight == 0 else { return nil }
            state.since = configuration.now()
            // Never shown: nothing to hide.
            return state.isActive ? startTimer(&state, after: configuration.linger) : nil
        }
        if let delay { runTimer(after: delay) }
    }

    /// `delay` when a timer task has to be started, `nil` when one is already sleeping.
    private func startTimer(_ state: inout State, after delay: Duration) -> Duration? {
        guard !state.timerRunning else { return nil }
        state.timerRunning = true
        return delay
    }

    private func runTimer(after delay: Duration) {
        Task { [weak self, sleep = configuration.sleep] in
            var delay = delay
            while true {
                do { try await sleep(delay) } catch {
                    self?.state.withLock { $0.timerRunning = false }
                    return
                }
                guard let step = self?.look() else { return }
                switch step {
                case .sleep(let remaining):
                    delay = remaining
                case .settle(let active, let subscribers):
                    for subscriber in subscribers { subscriber.yield(active) }
                    return
                case .stop:
                    return
                }
            }
        }
    }

    /// Whether the indicator changes now, or how much longer to wait, or that nothing is pending.
    private func look() -> Step {
        state.withLock { state in
            let wanted = state.inFlight > 0
            guard wanted != state.isActive, let since = state.since else {
                state.timerRunning = false
                return .stop
            }
            let due = since + (wanted ? configuration.showDelay : configuration.linger)
            let now = configuration.now()
            guard now >= due else { return .sleep(now.duration(to: due)) }
            state.isActive = wanted
            state.timerRunning = false
            return .settle(wanted, Array(state.subscribers.values))
        }
    }
}
