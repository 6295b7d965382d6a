import Foundation

/// A ``Client``'s book of calls: admits them under the concurrency limit (a queue ordered by
/// priority, then arrival), remembers each one's tags and URL, and cancels the ones asked for.
///
/// Each admitted call runs its pipeline work in a child task of the caller's (`async let`: made in
/// the caller's task allocator, cancelled with the caller), which registers a ``TaskHandle`` so
/// the client can cancel that one call without the caller's help.
final class RequestDispatcher: Sendable {
    /// How a call was ended early, kept for the error message.
    struct Cancellation: Sendable {
        let reason: String
    }

    /// One call in the book. Its `var`s are read and written only while the dispatcher's `state`
    /// lock is held (the book hands out no reference): that is why `@unchecked Sendable` is safe.
    /// A class, so each step changes the call it holds instead of looking it up again.
    private final class Call: @unchecked Sendable {
        let snapshot: InFlightRequest
        var state: InFlightRequest.State
        /// The running work's task, once it started.
        var handle: TaskHandle?
        /// Set when the call is cancelled; a task attached later is cancelled at once.
        var cancellation: Cancellation?
        /// A queued call's wait.
        var waiter: CheckedContinuation<Void, any Error>?
        /// Its neighbours in the book, a list linked through the calls themselves: booking and
        /// forgetting a call touch two neighbours, with no hashing of its ID. The book holds its
        /// newest call and each call the one booked before it (`older`); `newer` keeps nothing
        /// alive, and names a call the book still holds (it is cleared when that call leaves).
        unowned(unsafe) var newer: Call?
        var older: Call?
        /// Whether the book still holds it.
        var booked = true

        init(snapshot: InFlightRequest, state: InFlightRequest.State) {
            self.snapshot = snapshot
            self.state = state
        }
    }

    private struct State {
        var nextID: UInt64 = 1
        /// The newest call in the book; the others follow through `older`.
        var newest: Call?
        /// Every call in the book, newest first.
        var calls: UnfoldSequence<Call, Call?> {
            sequence(state: newest) { next in
                defer { next = next?.older }
                return next
            }
        }
        var running = 0
        /// Queued calls, kept in admission order: highest priority first, then arrival.
        var queue: [Call] = []
    }

    let limit: Int?
    private let state = Locked(State())

    init(limit: Int?) {
        self.limit = limit.map { max(1, $0) }
    }

    /// Runs `work` for `request` once a slot is free.
    ///
    /// - Throws: whatever `work` throws; `CancellationError` when the call is cancelled while
    ///   queued or running (by the caller's task or through the client), or `SluiceError`
    ///   `.cancelled` when `cancellationIsError`.
    func run(
        _ request: HTTPRequest, on executor: (any TaskExecutor)? = nil, cancellationIsError: Bool,
        _ work: @escaping @Sendable () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let call = register(request)
        defer { finish(call) }
        do {
            if call.snapshot.state == .queued { try await admit(call) }
            guard let executor else {
                async let response = attached(call, work)
                return try await response
            }
            // A caller on the transport's event thread keeps the work there (a child inherits only
            // a preference set with `withTaskExecutorPreference`).
            let task = Task(executorPreference: executor) { try await self.attached(call, work) }
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch is CancellationError where cancellationIsError {
            let reason = state.withLock { _ in call.cancellation?.reason } ?? "its task was cancelled"
            throw SluiceError(.cancelled, "\(request) was cancelled: \(reason)", stage: .client)
        }
    }

    // MARK: Management

    var snapshot: [InFlightRequest] {
        state.withLock { state in
            state.calls.map { call in
                let s = call.snapshot
                return InFlightRequest(
                    id: s.id, method: s.method, url: s.url, tags: s.tags, priority: s.priority,
                    state: call.state, accepted: s.accepted)
            }.sorted { $0.id < $1.id }
        }
    }

    /// Cancels every call `matches` picks; returns how many.
    @discardableResult
    func cancel(reason: String, where matches: (InFlightRequest) -> Bool) -> Int {
        var handles: [TaskHandle] = []
        var waiters: [CheckedContinuation<Void, any Error>] = []
        let count = state.withLock { state -> Int in
            var count = 0
            for call in state.calls where call.cancellation == nil && matches(call.snapshot) {
                count += 1
                call.cancellation = Cancellation(reason: reason)
                if let handle = call.handle { handles.append(handle) }
                if let waiter = call.waiter {
                    waiters.append(waiter)
                    call.waiter = nil
                    state.queue.removeAll { $0 === call }
                }
            }
            return count
        }
        for handle in handles { handle.cancel() }
        for waiter in waiters { waiter.resume(throwing: CancellationError()) }
        return count
    }

    // MARK: Steps

    /// Books the call: running at once when there is no limit (its snapshot then says so), queued
    /// otherwise until ``admit(_:)``.
    private func register(_ request: HTTPRequest) -> Call {
        let unlimited = limit == nil
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            let snapshot = InFlightRequest(
                id: id, method: request.method, url: request.url, tags: request.tags,
                priority: request.priority, state: unlimited ? .running : .queued, accepted: .now)
            let call = Call(snapshot: snapshot, state: snapshot.state)
            call.older = state.newest
            state.newest?.newer = call
            state.newest = call
            if unlimited { state.running += 1 }
            return call
        }
    }

    /// Takes a slot now, or waits in the queue for one.
    private func admit(_ call: Call) async throws {
        let admitted = state.withLock { state -> Bool in
            guard let limit, state.running >= limit || !state.queue.isEmpty else {
                state.running += 1
                call.state = .running
                return true
            }
            return false
        }
        if admitted { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                enum Outcome { case cancelled, admitted, queued }
                let outcome = state.withLock { state -> Outcome in
                    guard call.cancellation == nil else { return .cancelled }
                    // A slot may have been freed between the first look and now.
                    if let limit, state.running < limit, state.queue.isEmpty {
                        state.running += 1
                        call.state = .running
                        return .admitted
                    }
                    call.waiter = waiter
                    let priority = call.snapshot.priority
                    let place = state.queue.firstIndex { $0.snapshot.priority < priority } ?? state.queue.endIndex
                    state.queue.insert(call, at: place)
                    return .queued
                }
                switch outcome {
                case .cancelled: waiter.resume(throwing: CancellationError())
                case .admitted: waiter.resume()
                case .queued: break
                }
            }
        } onCancel: {
            let id = call.snapshot.id
            cancel(reason: "its task was cancelled") { $0.id == id }
        }
    }

    /// Runs `work` in the current task (the call's own), with a handle to it in the book for
    /// `cancel`; a call cancelled before the handle was in place is cancelled at once.
    private func attached(_ call: Call, _ work: @Sendable () async throws -> HTTPResponse) async throws -> HTTPResponse {
        let handle = TaskHandle.current()
        let cancelNow = state.withLock { _ -> Bool in
            call.handle = handle
            return call.cancellation != nil
        }
        if cancelNow { handle.cancel() }
        defer { handle.release() }
        return try await work()
    }

    /// Forgets the call; if it held a slot, hands the slot to the first queued call.
    private func finish(_ call: Call) {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard call.booked else { return nil }
            call.booked = false
            if let newer = call.newer { newer.older = call.older } else { state.newest = call.older }
            call.older?.newer = call.newer
            call.newer = nil
            call.older = nil
            if call.waiter != nil { state.queue.removeAll { $0 === call } }
            guard call.state == .running else { return nil }
            state.running -= 1
            while !state.queue.isEmpty {
                let next = state.queue.removeFirst()
                guard let waiter = next.waiter else { continue }
                next.waiter = nil
                next.state = .running
                state.running += 1
                return waiter
            }
            return nil
        }
        next?.resume()
    }
}

/// The task a call's work runs in, for ``RequestDispatcher/cancel(reason:where:)`` to cancel from
/// another thread.
///
/// `UnsafeCurrentTask` refers to its task without keeping it alive, so it is used only under the
/// handle's lock, and the task itself clears it (``release()``, under the same lock) before its
/// work returns: every ``cancel()`` finds either a task that is still running its work, or nothing.
/// That is why `@unchecked Sendable` is safe here. Cancelling runs the task's cancellation handlers
/// on the caller's thread while the lock is held; they never reach this handle again (a handler
/// that cancels calls skips one already cancelled, see `Call.cancellation`).
final class TaskHandle: @unchecked Sendable {
    private let lock = Locked(())
    /// Read and written only inside `lock`.
    nonisolated(unsafe) private var task: UnsafeCurrentTask?

    private init(_ task: UnsafeCurrentTask?) {
        self.task = task
    }

    /// The handle of the task that calls it.
    static func current() -> TaskHandle {
        withUnsafeCurrentTask { TaskHandle($0) }
    }

    /// Cancels the task, unless it has released its handle.
    func cancel() {
        lock.withLock { _ in task?.cancel() }
    }

    /// Forgets the task (the task itself, before its work returns).
    func release() {
        lock.withLock { _ in task = nil }
    }
}
