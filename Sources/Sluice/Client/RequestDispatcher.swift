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

    private struct Entry {
        let snapshot: InFlightRequest
        var state: InFlightRequest.State
        /// The running work's task, once it started.
        var handle: TaskHandle?
        /// Set when the call is cancelled; a task attached later is cancelled at once.
        var cancellation: Cancellation?
        /// A queued call's wait.
        var waiter: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var nextID: UInt64 = 1
        var entries: [UInt64: Entry] = [:]
        var running = 0
        /// Queued call ids, kept in admission order: highest priority first, then arrival.
        var queue: [UInt64] = []
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
        let id = register(request)
        defer { finish(id) }
        do {
            try await admit(id)
            guard let executor else {
                async let response = attached(id, work)
                return try await response
            }
            // A caller on the transport's event thread keeps the work there (a child inherits only
            // a preference set with `withTaskExecutorPreference`).
            let task = Task(executorPreference: executor) { try await self.attached(id, work) }
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch is CancellationError where cancellationIsError {
            let reason = state.withLock { $0.entries[id]?.cancellation?.reason } ?? "its task was cancelled"
            throw SluiceError(.cancelled, "\(request) was cancelled: \(reason)", stage: .client)
        }
    }

    // MARK: Management

    var snapshot: [InFlightRequest] {
        state.withLock { state in
            state.entries.values.map { entry in
                let s = entry.snapshot
                return InFlightRequest(
                    id: s.id, method: s.method, url: s.url, tags: s.tags, priority: s.priority,
                    state: entry.state, accepted: s.accepted)
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
            for (id, entry) in state.entries where entry.cancellation == nil && matches(entry.snapshot) {
                count += 1
                state.entries[id]?.cancellation = Cancellation(reason: reason)
                if let handle = entry.handle { handles.append(handle) }
                if let waiter = entry.waiter {
                    waiters.append(waiter)
                    state.entries[id]?.waiter = nil
                    state.queue.removeAll { $0 == id }
                }
            }
            return count
        }
        for handle in handles { handle.cancel() }
        for waiter in waiters { waiter.resume(throwing: CancellationError()) }
        return count
    }

    // MARK: Steps

    private func register(_ request: HTTPRequest) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            let snapshot = InFlightRequest(
                id: id, method: request.method, url: request.url, tags: request.tags,
                priority: request.priority, state: .queued, accepted: .now)
            state.entries[id] = Entry(snapshot: snapshot, state: .queued)
            return id
        }
    }

    /// Takes a slot now, or waits in the queue for one.
    private func admit(_ id: UInt64) async throws {
        let admitted = state.withLock { state -> Bool in
            guard let limit, state.running >= limit || !state.queue.isEmpty else {
                state.running += 1
                state.entries[id]?.state = .running
                return true
            }
            return false
        }
        if admitted { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                enum Outcome { case cancelled, admitted, queued }
                let outcome = state.withLock { state -> Outcome in
                    guard state.entries[id]?.cancellation == nil else { return .cancelled }
                    // A slot may have been freed between the first look and now.
                    if let limit, state.running < limit, state.queue.isEmpty {
                        state.running += 1
                        state.entries[id]?.state = .running
                        return .admitted
                    }
                    state.entries[id]?.waiter = waiter
                    let priority = state.entries[id]?.snapshot.priority ?? .normal
                    let place = state.queue.firstIndex { (state.entries[$0]?.snapshot.priority ?? .normal) < priority } ?? state.queue.endIndex
                    state.queue.insert(id, at: place)
                    return .queued
                }
                switch outcome {
                case .cancelled: waiter.resume(throwing: CancellationError())
                case .admitted: waiter.resume()
                case .queued: break
                }
            }
        } onCancel: {
            cancel(reason: "its task was cancelled") { $0.id == id }
        }
    }

    /// Runs `work` in the current task (the call's own), with a handle to it in the book for
    /// `cancel`; a call cancelled before the handle was in place is cancelled at once.
    private func attached(_ id: UInt64, _ work: @Sendable () async throws -> HTTPResponse) async throws -> HTTPResponse {
        let handle = TaskHandle.current()
        let cancelNow = state.withLock { state -> Bool in
            state.entries[id]?.handle = handle
            return state.entries[id]?.cancellation != nil
        }
        if cancelNow { handle.cancel() }
        defer { handle.release() }
        return try await work()
    }

    /// Forgets the call; if it held a slot, hands the slot to the first queued call.
    private func finish(_ id: UInt64) {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            state.queue.removeAll { $0 == id }
            guard entry.state == .running else { return nil }
            state.running -= 1
            while !state.queue.isEmpty {
                let nextID = state.queue.removeFirst()
                guard let waiter = state.entries[nextID]?.waiter else { continue }
                state.entries[nextID]?.waiter = nil
                state.entries[nextID]?.state = .running
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
/// that cancels calls skips one already cancelled, see `Entry.cancellation`).
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
