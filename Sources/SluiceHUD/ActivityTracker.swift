import Foundation
import Sluice

/// Counts requests in flight and says when a loading indicator should show, without flicker:
/// ``isActive`` turns true only after ``Configuration/showDelay`` of continuous activity (1 s) and
/// false only after ``Configuration/linger`` of quiet (0.17 s), as AFNetworkActivityIndicatorManager
/// does. Fast requests never show anything.
///
/// ```swift
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

        /// Settings with each value given, or its default.
        public init(
            showDelay: Duration = .seconds(1), linger: Duration = .milliseconds(170),
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
        ) {
            self.showDelay = showDelay
            self.linger = linger
            self.sleep = sleep
        }

        /// Show after 1 s, hide 0.17 s after the last request.
        public static let `default` = Configuration()
    }

    private struct State {
        var inFlight = 0
        var isActive = false
        var timer: Task<Void, Never>?
        var generation = 0
        var subscribers: [UInt64: AsyncStream<Bool>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    /// How it behaves.
    public let configuration: Configuration
    private let state = Locked(State())

    /// A tracker with `configuration`.
    public init(configuration: Configuration = .default) {
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
        state.withLock { state in
            state.inFlight += 1
            guard state.inFlight == 1 else { return }
            state.timer?.cancel()
            state.generation += 1
            guard !state.isActive else { return }  // a linger was running: keep showing
            state.timer = schedule(after: configuration.showDelay, generation: state.generation, active: true)
        }
    }

    /// A request ended.
    public func end() {
        state.withLock { state in
            guard state.inFlight > 0 else { return }
            state.inFlight -= 1
            guard state.inFlight == 0 else { return }
            state.timer?.cancel()
            state.generation += 1
            guard state.isActive else { return }  // never shown: nothing to hide
            state.timer = schedule(after: configuration.linger, generation: state.generation, active: false)
        }
    }

    private func schedule(after delay: Duration, generation: Int, active: Bool) -> Task<Void, Never> {
        Task { [weak self, sleep = configuration.sleep] in
            do { try await sleep(delay) } catch { return }
            self?.settle(generation: generation, active: active)
        }
    }

    private func settle(generation: Int, active: Bool) {
        let subscribers = state.withLock { state -> [AsyncStream<Bool>.Continuation] in
            guard state.generation == generation, state.isActive != active else { return [] }
            state.isActive = active
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(active) }
    }
}
