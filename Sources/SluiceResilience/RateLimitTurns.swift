import Foundation
import Sluice

/// The calls of this process waiting under one rate-limit key: one at a time asks the store
/// (the others would only be told to wait too), highest `HTTPRequest.priority` first and then in
/// arrival order. A key nobody waits on holds no entry, so the table stays as small as the keys in
/// use.
final class RateLimitTurns: Sendable {
    private struct Waiter {
        let id: UInt64
        let priority: RequestPriority
        /// The waiting call's URL, for its origin when the held calls are counted.
        let url: URL
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Line {
        /// A call holds the turn: it is asking the store, or sleeping until it may ask again.
        var busy = false
        /// The URL of the call holding the turn while it sleeps until its place: held too.
        var sleeping: URL?
        /// Highest priority first, then arrival.
        var waiters: [Waiter] = []
    }

    private struct State {
        var lines: [ExactKey: Line] = [:]
        var nextID: UInt64 = 0
    }

    /// `maxWaiting` calls wait already under the key.
    struct Full: Error {
        let waiting: Int
    }

    private let state = Locked(State())

    /// Whether a call holds the turn under `key`, and how many wait behind it.
    func state(of key: String) -> (busy: Bool, waiting: Int) {
        state.withLock { ($0.lines[ExactKey(key)]?.busy ?? false, $0.lines[ExactKey(key)]?.waiters.count ?? 0) }
    }

    /// Takes the turn under `key`: at once when nobody holds it, else after the calls ahead.
    /// Every call that returns must ``pass(_:)`` the turn on, whatever happens next.
    ///
    /// - Throws: ``Full`` when `maxWaiting` calls wait already, `CancellationError` when the task
    ///   is cancelled while it waits; either way it holds no turn.
    func take(_ key: String, priority: RequestPriority, url: URL, maxWaiting: Int) async throws {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Bool, any Error> = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    var line = state.lines[ExactKey(key)] ?? Line()
                    if !line.busy {
                        line.busy = true
                        state.lines[ExactKey(key)] = line
                        return .success(true)
                    }
                    if line.waiters.count >= maxWaiting { return .failure(Full(waiting: line.waiters.count)) }
                    let place = line.waiters.firstIndex { $0.priority < priority } ?? line.waiters.endIndex
                    line.waiters.insert(Waiter(id: id, priority: priority, url: url, continuation: continuation), at: place)
                    state.lines[ExactKey(key)] = line
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.lines[ExactKey(key)]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.lines[ExactKey(key)]?.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Notes that the call holding the turn under `key` sleeps until its place (`url`), or no
    /// longer does (`nil`).
    func sleeping(_ key: String, _ url: URL?) {
        state.withLock { state in
            guard state.lines[ExactKey(key)] != nil else { return }
            state.lines[ExactKey(key)]?.sleeping = url
        }
    }

    /// The calls waiting for a turn or sleeping until their place, by origin.
    func held() -> [String: Int] {
        var held: [String: Int] = [:]
        state.withLock { state in
            for line in state.lines.values {
                if let url = line.sleeping { held[url.origin, default: 0] += 1 }
                for waiter in line.waiters { held[waiter.url.origin, default: 0] += 1 }
            }
        }
        return held
    }

    /// Hands the turn under `key` to the first waiting call, or frees it.
    func pass(_ key: String) {
        let next = state.withLock { state -> Waiter? in
            guard var line = state.lines[ExactKey(key)] else { return nil }
            guard !line.waiters.isEmpty else {
                state.lines.removeValue(forKey: ExactKey(key))
                return nil
            }
            let next = line.waiters.removeFirst()
            line.sleeping = nil
            state.lines[ExactKey(key)] = line
            return next
        }
        next?.continuation.resume()
    }
}
