import Sluice

/// Identical concurrent fetches, run once: the first caller (the leader) fetches in its own task,
/// so the fetch keeps the caller's executor, priority and task-locals; callers that ask for the
/// same key meanwhile wait for its result.
///
/// A waiting caller that is cancelled stops waiting alone (with `CancellationError`). When the
/// leader is cancelled its fetch stops, and each waiter that was not cancelled fetches again (one
/// of them leading).
final class FetchCoalescer: Sendable {
    private typealias Waiter = UnsafeContinuation<HTTPResponse, any Error>

    private struct State {
        /// For each key being fetched, its waiters by id.
        var flights: [String: [UInt64: Waiter]] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// The leader finished before this waiter could join: fetch again.
    private struct Missed: Error {}

    private let state = Locked(State())

    /// The result of `fetch` for `key`, shared with every concurrent caller of the same key.
    func run(_ key: String, _ fetch: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        while true {
            let leads = state.withLock { state -> Bool in
                guard state.flights[key] == nil else { return false }
                state.flights[key] = [:]
                return true
            }
            if leads {
                let result: Result<HTTPResponse, any Error>
                do { result = .success(try await fetch()) } catch { result = .failure(error) }
                let waiters = state.withLock { $0.flights.removeValue(forKey: key) ?? [:] }
                for waiter in waiters.values { ThreadSanitizer.resume(waiter, with: result) }
                return try result.get()
            }
            do {
                return try await wait(for: key)
            } catch is Missed {
                continue
            } catch is CancellationError where !Task.isCancelled {
                continue            // the leader was cancelled, not this caller
            }
        }
    }

    private func wait(for key: String) async throws -> HTTPResponse {
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
