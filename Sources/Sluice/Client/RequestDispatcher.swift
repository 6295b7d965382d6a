import Foundation

/// A ``Client``'s book of calls: admits them under the concurrency limit (a queue ordered by
/// priority, then arrival), remembers each one's tags and URL, and cancels the ones asked for.
///
/// Each admitted call runs its pipeline work in its own task, so the client can cancel one call
/// without the caller's help; the caller's own cancellation is forwarded to it.
final class RequestDispatcher: Sendable {
    /// How a call was ended early, kept for the error message.
    struct Cancellation: Sendable {
        let reason: String
    }

    private struct Entry {
        let snapshot: InFlightRequest
        var state: InFlightRequest.State
        /// The running work, once started.
        var task: Task<HTTPResponse, any Error>?
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
            let task = Task(executorPreference: executor) { try await work() }
            attach(task, to: id)
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
        var tasks: [Task<HTTPResponse, any Error>] = []
        var waiters: [CheckedContinuation<Void, any Error>] = []
        let count = state.withLock { state -> Int in
            var count = 0
            for (id, entry) in state.entries where entry.cancellation == nil && matches(entry.snapshot) {
                count += 1
                state.entries[id]?.cancellation = Cancellation(reason: reason)
                if let task = entry.task { tasks.append(task) }
                if let waiter = entry.waiter {
                    waiters.append(waiter)
                    state.entries[id]?.waiter = nil
                    state.queue.removeAll { $0 == id }
                }
            }
            return count
        }
        for task in tasks { task.cancel() }
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

    private func attach(_ task: Task<HTTPResponse, any Error>, to id: UInt64) {
        let cancelNow = state.withLock { state -> Bool in
            state.entries[id]?.task = task
            return state.entries[id]?.cancellation != nil
        }
        if cancelNow { task.cancel() }
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
