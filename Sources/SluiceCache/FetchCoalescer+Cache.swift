import Sluice
import Synchronization

/// Identical concurrent fetches, run once: the first caller's fetch is shared by every caller that
/// asks for the same key while it runs.
///
/// A caller that is cancelled stops waiting (with `CancellationError`) without disturbing the
/// others; the shared fetch is cancelled only when no caller is left waiting for it.
final class FetchCoalescer: Sendable {
    private typealias Waiter = UnsafeContinuation<HTTPResponse, any Error>

    private struct Flight {
        var waiters: [UInt64: Waiter] = [:]
        var task: Task<Void, Never>?
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The result of `fetch` for `key`, shared with every concurrent caller of the same key.
    func run(_ key: String, _ fetch: @escaping @Sendable () async throws -> HTTPResponse) async throws -> HTTPResponse {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (waiter: Waiter) in
                state.withLock { state in
                    let isNew = state.flights[key] == nil
                    state.flights[key, default: Flight()].waiters[id] = waiter
                    guard isNew else { return }
                    // Made under the lock, so the flight always knows its task; the task itself
                    // takes the lock only when it finishes.
                    state.flights[key]?.task = Task { [self] in
                        let result: Result<HTTPResponse, any Error>
                        do { result = .success(try await fetch()) } catch { result = .failure(error) }
                        let waiters = self.state.withLock { $0.flights.removeValue(forKey: key)?.waiters.values.map { $0 } ?? [] }
                        for waiter in waiters { waiter.resume(with: result) }
                    }
                }
            }
        } onCancel: {
            let (waiter, orphaned) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
                let waiter = state.flights[key]?.waiters.removeValue(forKey: id)
                var orphaned: Task<Void, Never>?
                if waiter != nil, state.flights[key]?.waiters.isEmpty == true { orphaned = state.flights[key]?.task }
                return (waiter, orphaned)
            }
            waiter?.resume(throwing: CancellationError())
            orphaned?.cancel()
        }
    }

    /// How many fetches are in flight (for tests).
    var inFlight: Int { state.withLock { $0.flights.count } }
}
