import Foundation
import Sluice

// `stale-while-revalidate`: revalidation in the background, owned by the cache.
extension CacheMiddleware {
    /// Revalidates `stored` in a task the cache owns: at most
    /// ``Configuration/maxBackgroundRevalidations`` at once and one per key, each ended by
    /// ``Configuration/backgroundRevalidationTimeout``, and all of them cancelled (their
    /// transfers with them) when the last copy of this middleware, its client, goes away.
    func revalidateInBackground(
        _ stored: CachedResponse, request: HTTPRequest, seen: HTTPRequest, key: String, context: RequestContext, next: Next
    ) {
        guard revalidating.begin(key, limit: configuration.maxBackgroundRevalidations) else { return }
        let conditions = strategy.conditionalFields(for: stored)
        var background = context
        background.deadline = .after(configuration.backgroundRevalidationTimeout)
        // The task holds a copy without the lifetime token: a task that kept the cache alive
        // could never be cancelled by the cache going away.
        var worker = self
        worker.lifetime = nil
        let revalidating = self.revalidating
        let task = Task {
            defer { revalidating.end(key) }
            var conditional = request
            conditional.cachePolicy = .useProtocol
            var seenConditional = seen
            seenConditional.cachePolicy = .useProtocol
            _ = try? await worker.validate(
                conditional, seen: seenConditional, conditions: conditions, key: key, stored: stored, context: background, next: next)
        }
        revalidating.started(key, task)
    }
}

/// The revalidations running in the background, by key: each key is revalidated once at a time,
/// no more than a limit at once, and each task is kept so it can be cancelled.
final class RevalidationSet: Sendable {
    /// A key's task; `nil` from ``begin(_:limit:)`` until its task is made.
    private let tasks = Locked([String: Task<Void, Never>?]())

    /// Whether `key` may start: it is not running already, and fewer than `limit` are.
    func begin(_ key: String, limit: Int) -> Bool {
        tasks.withLock { tasks in
            guard tasks.count < limit, tasks[key] == nil else { return false }
            tasks[key] = .some(nil)
            return true
        }
    }

    /// Keeps the task of a key that began; one that has already ended is not kept.
    func started(_ key: String, _ task: Task<Void, Never>) {
        tasks.withLock { tasks in
            if tasks[key] != nil { tasks[key] = task }
        }
    }

    /// How many run now.
    var count: Int { tasks.withLock { $0.count } }

    func end(_ key: String) { tasks.withLock { _ = $0.removeValue(forKey: key) } }

    /// Cancels every task running.
    func cancelAll() {
        for case let task? in tasks.withLock({ Array($0.values) }) { task.cancel() }
    }
}

/// Held by every copy of a ``CacheMiddleware`` (the client's) and by none of its background
/// tasks: when the last copy goes, the revalidations it started are cancelled.
final class RevalidationLifetime: Sendable {
    let revalidations: RevalidationSet

    init(_ revalidations: RevalidationSet) {
        self.revalidations = revalidations
    }

    deinit { revalidations.cancelAll() }
}
