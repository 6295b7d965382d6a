#if canImport(Glibc)
    import Glibc
#endif

/// Marks the threads that drive an event loop (`CurlTransport`'s), which are not threads of
/// Swift's cooperative pool. Code that would hand a short blocking call to another thread and
/// wait for it (a Redis command) can run it right there instead: one round trip, and no thread
/// woken on either side. `package`: for Sluice's own targets.
///
/// ```swift
/// EventThread.markCurrent()                  // first thing on the loop's thread
/// if EventThread.isCurrent { … }             // anywhere: is this such a thread?
/// ```
package enum EventThread {
    /// A thread-specific slot, set (to any non-null value) on marked threads only.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Marks the calling thread for as long as it lives.
    package static func markCurrent() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// Whether the calling thread was marked.
    package static var isCurrent: Bool { pthread_getspecific(key) != nil }
}
