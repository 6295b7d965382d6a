#if canImport(Glibc)
    import Glibc
#endif

/// Marks the threads that drive an event loop (`CurlTransport`'s), which are not threads of
/// Swift's cooperative pool. Nothing that blocks (SQLite, files, hiredis) may run on one, even
/// with its loop idle: a call that starts there a moment later would wait for it (THREATS §15).
/// ``BlockingWork`` reads the mark to hand such work off. `package`: for Sluice's own targets.
///
/// ```swift
/// EventThread.markCurrent { !active.isEmpty }   // first thing on the loop's thread
/// if EventThread.isCurrent { … }                // anywhere: hand blocking work off
/// EventThread.unmarkCurrent()                   // when the loop ends
/// ```
package enum EventThread {
    /// What a marked thread says about its loop.
    private final class Mark {
        let isBusy: () -> Bool
        init(isBusy: @escaping () -> Bool) { self.isBusy = isBusy }
    }

    /// A thread-specific slot holding the thread's retained `Mark`, on marked threads only.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Marks the calling thread until ``unmarkCurrent()``. `isBusy` is called on this thread only
    /// and says whether the loop has I/O in flight that a blocking call would hold up.
    package static func markCurrent(isBusy: @escaping () -> Bool) {
        unmarkCurrent()
        pthread_setspecific(key, Unmanaged.passRetained(Mark(isBusy: isBusy)).toOpaque())
    }

    /// Removes the calling thread's mark, if any.
    package static func unmarkCurrent() {
        guard let mark = pthread_getspecific(key) else { return }
        pthread_setspecific(key, nil)
        Unmanaged<Mark>.fromOpaque(mark).release()
    }

    /// Whether the calling thread was marked.
    package static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Whether the calling thread was marked and its loop has nothing in flight.
    package static var isCurrentAndIdle: Bool {
        guard let mark = pthread_getspecific(key) else { return false }
        return !Unmanaged<Mark>.fromOpaque(mark).takeUnretainedValue().isBusy()
    }
}
