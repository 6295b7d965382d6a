import Sluice
import Synchronization

/// One origin's slots: how many calls are in flight, the adaptive limit they are held to, and the
/// calls waiting for a slot, highest priority first and then in arrival order.
final class ConcurrencyLimiter: Sendable {
    /// What ``admit(priority:maxWaiting:)`` decided.
    enum Admission: Sendable {
        /// A slot, taken at this instant.
        case admitted(Slot)
        /// No slot and no place to wait: the limit, and the calls already waiting.
        case refused(ConcurrencyLimitMiddleware.Status)
        /// No slot now: wait with ``wait(priority:)``.
        case mustWait
    }

    /// A slot taken: when, and in which of the limit's epochs.
    struct Slot: Sendable {
        let sent: ContinuousClock.Instant
        let epoch: Int
    }

    private struct Waiter {
        let id: UInt64
        let priority: RequestPriority
        let continuation: CheckedContinuation<Slot, any Error>
    }

    private struct State {
        var limit: AdaptiveLimit
        var inFlight = 0
        /// Highest priority first, then arrival.
        var queue: [Waiter] = []
        var nextID: UInt64 = 0

        var status: ConcurrencyLimitMiddleware.Status {
            ConcurrencyLimitMiddleware.Status(limit: limit.permits, inFlight: inFlight, waiting: queue.count, minimumLatency: limit.minimum)
        }

        /// A slot taken now.
        mutating func take() -> Slot {
            inFlight += 1
            return Slot(sent: .now, epoch: limit.epoch)
        }

        /// Slots for the first waiters while the limit allows.
        mutating func admitWaiters() -> [(CheckedContinuation<Slot, any Error>, Slot)] {
            var admitted: [(CheckedContinuation<Slot, any Error>, Slot)] = []
            while inFlight < limit.permits, !queue.isEmpty {
                let waiter = queue.removeFirst()
                admitted.append((waiter.continuation, take()))
            }
            return admitted
        }
    }

    private let state: Mutex<State>

    init(limit: AdaptiveLimit) {
        state = Mutex(State(limit: limit))
    }

    var status: ConcurrencyLimitMiddleware.Status { state.withLock { $0.status } }

    /// A slot now when one is free and nobody waits for it; otherwise `.mustWait`, or `.refused`
    /// when `maxWaiting` calls wait already (0: fail fast).
    func admit(maxWaiting: Int) -> Admission {
        state.withLock { state in
            if state.inFlight < state.limit.permits, state.queue.isEmpty { return .admitted(state.take()) }
            return state.queue.count < maxWaiting ? .mustWait : .refused(state.status)
        }
    }

    /// Waits in the queue for a slot; returns when it was taken.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first (the call leaves the queue).
    func wait(priority: RequestPriority) async throws -> Slot {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Slot, any Error>) in
                enum Outcome {
                    case cancelled
                    case admitted(Slot)
                    case queued
                }
                // Under the lock, a cancellation either came before this look (and is seen here)
                // or its handler runs after the waiter is in the queue (and finds it there).
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if state.inFlight < state.limit.permits, state.queue.isEmpty { return .admitted(state.take()) }
                    let place = state.queue.firstIndex { $0.priority < priority } ?? state.queue.endIndex
                    state.queue.insert(Waiter(id: id, priority: priority, continuation: continuation), at: place)
                    return .queued
                }
                switch outcome {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .admitted(let slot): continuation.resume(returning: slot)
                case .queued: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                return state.queue.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives back `slot`, moves the limit by the call's answer (see
    /// ``AdaptiveLimit/record(latency:sent:epoch:inFlight:overloaded:now:)``), and admits waiters.
    func release(_ slot: Slot, latency: Duration?, overloaded: Bool) {
        let admitted = state.withLock { state in
            state.limit.record(
                latency: latency, sent: slot.sent, epoch: slot.epoch, inFlight: state.inFlight, overloaded: overloaded, now: .now)
            state.inFlight -= 1
            return state.admitWaiters()
        }
        for (continuation, slot) in admitted { continuation.resume(returning: slot) }
    }
}

/// Every origin's limiter, shared by every copy of the middleware: at most `maxOrigins`, the one
/// used longest ago forgotten first. A forgotten limiter still serves the calls that hold it, and
/// the origin's next call starts a new one.
final class ConcurrencyLimiters: Sendable {
    private let limiters: Mutex<OriginTable<ConcurrencyLimiter>>
    private let make: @Sendable () -> AdaptiveLimit
    /// The limit a new origin starts at.
    let initialLimit: Int

    init(maxOrigins: Int, make: @escaping @Sendable () -> AdaptiveLimit) {
        limiters = Mutex(OriginTable(limit: maxOrigins))
        self.make = make
        initialLimit = make().permits
    }

    func limiter(for origin: String) -> ConcurrencyLimiter {
        limiters.withLock { table in
            let limiter = table[origin] ?? ConcurrencyLimiter(limit: make())
            table.store(limiter, for: origin)
            return limiter
        }
    }

    func existing(for origin: String) -> ConcurrencyLimiter? {
        limiters.withLock { $0[origin] }
    }
}
