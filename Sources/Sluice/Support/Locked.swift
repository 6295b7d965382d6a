import Foundation

/// A value behind a lock: `Synchronization.Mutex`'s `withLock`, on a pthread mutex.
///
/// Sluice's modules and tests guard shared state with this instead of `Mutex`, because
/// ThreadSanitizer on Linux cannot see `Mutex`: it parks threads with raw futex system calls, which
/// TSan does not intercept, so every access a `Mutex` guarded was reported as a data race and
/// `make test-tsan` could not tell real races from those. TSan intercepts pthread mutexes. Without
/// contention both take one atomic operation to lock and one to unlock. `package`: for Sluice's
/// own targets, not part of the API.
///
/// ```swift
/// let hits = Locked([String: Int]())
/// hits.withLock { $0["/users", default: 0] += 1 }
/// ```
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked: `value` is reached only inside `withLock`, between pthread_mutex_lock and
    // pthread_mutex_unlock on `mutex`, so one thread at a time; `mutex` itself never changes.
    // Like Mutex, the value goes in and out as `sending`, so no unprotected reference to it escapes.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // No run-time exclusivity check (about 80 instructions a lock, on every event-loop turn): the
    // value is reached only inside `withLock`, with the mutex held, so no two accesses overlap; a
    // nested `withLock` on the same lock would deadlock on the mutex before it could overlap.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
