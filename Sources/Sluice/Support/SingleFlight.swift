/// Identical concurrent work, run once: the first caller for a key (the leader) runs the work in
/// its own task, so it keeps that task's executor, priority and task-locals; callers that ask for
/// the same key meanwhile wait for the leader's result instead of starting their own. The cache
/// coalesces identical fetches with it, and the bearer-token middleware its refreshes; an
/// in-house middleware can renew a session with it the same way.
///
/// - A waiting caller that is cancelled stops waiting alone, with `CancellationError`.
/// - When the leader is cancelled its work stops, and each waiter that was not cancelled runs the
///   work again (one of them leading).
/// - Once the work has finished, the next caller for the key starts it afresh: results are shared,
///   never kept.
///
/// ```swift
/// import Sluice
///
/// let refreshes = SingleFlight<String, String>()
/// // Fifty requests that got a 401 with the same token share one refresh:
/// let fresh = try await refreshes.run(staleToken) { try await authClient.refreshAccessToken() }
/// ```
public final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = UnsafeContinuation<Value, any Error>

    private struct State {
        /// For each key whose work runs, its waiters by id.
        var flights: [Key: [UInt64: Waiter]] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// The leader finished before this waiter could join: run again.
    private struct Missed: Error {}

    private let state = Locked(State())

    /// No work running yet.
    public init() {}

    /// How many callers wait for the work running for `key`, or nil when none runs. `package`: for
    /// tests that must know a caller joined before they let the work finish.
    package func waiters(for key: Key) -> Int? {
        state.withLock { $0.flights[key]?.count }
    }

    /// How many callers wait, over every key. `package`: for tests.
    package var waiterCount: Int {
        state.withLock { $0.flights.values.reduce(0) { $0 + $1.count } }
    }

    /// The result of `work` for `key`, shared with every caller of the same key while it runs.
    ///
    /// - Throws: what `work` throws, to the leader and every waiter; `CancellationError` to a
    ///   waiter that is cancelled itself.
    public func run(_ key: Key, _ work: () async throws -> Value) async throws -> Value {
        while true {
            let leads = state.withLock { state -> Bool in
                guard state.flights[key] == nil else { return false }
                state.flights[key] = [:]
                return true
            }
            if leads {
                let result: Result<Value, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                let waiters = state.withLock { $0.flights.removeValue(forKey: key) ?? [:] }
                for waiter in waiters.values { ThreadSanitizer.resume(waiter, with: result) }
                return try result.get()
            }
            do {
                return try await wait(for: key)
            } catch is Missed {
                continue
            } catch is CancellationError where !Task.isCancelled {
                continue  // the leader was cancelled, not this caller
            }
        }
    }

    private func wait(for key: Key) async throws -> Value {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await ThreadSanitizer.withContinuation { (waiter: Waiter) in
                let joined = state.withLock { state -> Bool in
                    guard state.flights[key] != nil else { return false }
                    state.flights[key]?[id] = waiter
                    return true
                }
                if !joined { ThreadSanitizer.resume(waiter, with: .failure(Missed())) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.flights[key]?.removeValue(forKey: id) }
            if let waiter { ThreadSanitizer.resume(waiter, with: .failure(CancellationError())) }
        }
    }
}
