import Sluice

/// One origin's slots: how many calls are in flight, the adaptive limit they are held to, and the
/// calls waiting for a slot, highest priority first and then in arrival order.
final class ConcurrencyLimiter: Sendable {
    /// What ``admit(maxWaiting:)`` decided.
    enum Admission: Sendable {
        /// A slot, taken now.
        case admitted(Slot)
        /// No slot and no place to wait: the limit, and the calls already waiting.
        case refused(ConcurrencyLimitMiddleware.Status)
        /// No slot now: wait with ``wait(priority:until:)``.
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

    private let state: Locked<State>

    init(limit: AdaptiveLimit) {
        state = Locked(State(limit: limit))
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

    /// The call's deadline passed while it waited.
    struct Expired: Error {}

    /// `maxWaiting` calls waited already when the call came to join the queue.
    struct QueueFull: Error {
        let status: ConcurrencyLimitMiddleware.Status
    }

    /// Waits in the queue for a slot until `deadline`; returns the slot taken. The place in the
    /// queue is checked and taken under one lock: ``admit(maxWaiting:)``'s `.mustWait` is a
    /// look, not a reservation, so any number of calls told to wait at once still find at most
    /// `maxWaiting` places.
    ///
    /// Whatever ends the wait, the queue decides it under its lock, so a call admitted just as it
    /// was cancelled or timed out gets its slot (and gives it back when it ends) rather than
    /// losing it.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first, ``Expired`` when the
    ///   deadline passes first, ``QueueFull`` when `maxWaiting` calls wait already; either way the
    ///   call is not in the queue.
    func wait(priority: RequestPriority, until deadline: ContinuousClock.Instant?, maxWaiting: Int = .max) async throws -> Slot {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        guard let deadline else { return try await queued(id, priority: priority, deadline: nil, maxWaiting: maxWaiting) }
        return try await withThrowingTaskGroup(of: Slot?.self) { group in
            group.addTask { try await self.queued(id, priority: priority, deadline: deadline, maxWaiting: maxWaiting) }
            group.addTask {
                do { try await Task.sleep(clampingUntil: deadline) } catch { return nil }
                self.leave(id, with: Expired())
                return nil
            }
            // The waiter's outcome decides, whichever child ends first.
            while let outcome = try await group.next() {
                if let slot = outcome {
                    group.cancelAll()
                    return slot
                }
            }
            throw CancellationError()  // not reached: the waiter ends with a slot or an error
        }
    }

    /// Joins the queue as `id`, unless a slot is free (taken at once), the task is cancelled,
    /// `deadline` has passed (its timer may have fired before the call was queued), or
    /// `maxWaiting` calls wait already.
    private func queued(_ id: UInt64, priority: RequestPriority, deadline: ContinuousClock.Instant?, maxWaiting: Int) async throws -> Slot {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Slot, any Error>) in
                enum Outcome {
                    case failed(any Error)
                    case admitted(Slot)
                    case queued
                }
                // Under the lock, a cancellation or expiry either came before this look (and is
                // seen here) or finds the waiter in the queue.
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .failed(CancellationError()) }
                    if state.inFlight < state.limit.permits, state.queue.isEmpty { return .admitted(state.take()) }
                    if let deadline, ContinuousClock.now >= deadline { return .failed(Expired()) }
                    if state.queue.count >= maxWaiting { return .failed(QueueFull(status: state.status)) }
                    let place = state.queue.firstIndex { $0.priority < priority } ?? state.queue.endIndex
                    state.queue.insert(Waiter(id: id, priority: priority, continuation: continuation), at: place)
                    return .queued
                }
                switch outcome {
                case .failed(let error): continuation.resume(throwing: error)
                case .admitted(let slot): continuation.resume(returning: slot)
                case .queued: break
                }
            }
        } onCancel: {
            leave(id, with: CancellationError())
        }
    }

    /// Takes `id` out of the queue with `error`, unless it has left it already (admitted).
    private func leave(_ id: UInt64, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
            return state.queue.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
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
