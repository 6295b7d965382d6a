import Foundation

/// Writes that cannot end the process. A write(2) to a pipe or socket whose reader has gone raises
/// SIGPIPE, and the signal's default action ends the whole process (an app, a server, a test run)
/// without a word: hiredis writes with plain write(2), and a log or a command's output may be a
/// pipe. Sluice leaves the process's handling of the signal to the app; it blocks SIGPIPE on the
/// writing thread instead, so that the write fails with `EPIPE`, which the caller reports as a
/// typed error. `package`: for Sluice's own targets.
///
/// ```swift
/// let sent = BrokenPipe.withoutSignal { SystemFile.write(bytes, to: fd) }
/// ```
package enum BrokenPipe {
    /// `body`'s result, with SIGPIPE blocked on this thread while it runs; a SIGPIPE that `body`
    /// raised is taken off the thread before the signal mask is restored (and `errno` is kept).
    /// On a thread that blocks SIGPIPE already (an event thread, or an app's choice), nothing is
    /// changed or taken: one system call. (Dispatch's and Swift concurrency's threads do not
    /// block it.)
    package static func withoutSignal<Result>(_ body: () throws -> Result) rethrows -> Result {
        var pipeOnly = pipeOnly
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
        guard sigismember(&previous, SIGPIPE) == 0 else { return try body() }
        defer {
            let kept = errno
            // SIGPIPE was deliverable on this thread until now, so one pending here is body's.
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var now = timespec()
                while sigtimedwait(&pipeOnly, nil, &now) < 0 && errno == EINTR {}
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            errno = kept
        }
        return try body()
    }

    /// Blocks SIGPIPE on the calling thread for good: for a thread of Sluice's own (an event
    /// thread), where every write (libcurl's, OpenSSL's, a body written to a FIFO, hiredis's) is
    /// Sluice's. A SIGPIPE raised there stays pending on that thread and is never delivered.
    package static func blockOnThisThread() {
        var pipeOnly = pipeOnly
        pthread_sigmask(SIG_BLOCK, &pipeOnly, nil)
    }

    /// The set holding SIGPIPE alone.
    private static var pipeOnly: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        return set
    }
}
