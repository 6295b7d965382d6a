import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Process {
    /// Ends the child with SIGKILL and returns once the kernel has ended it: its sockets are
    /// closed and its port is free. At most 10 s.
    ///
    /// It never waits through Foundation. `waitUntilExit` spins on the calling thread until
    /// Foundation's process monitor notes the exit, and that note needs a thread of the
    /// cooperative pool: two tests that waited there at once held both of this machine's pool
    /// threads, and the run never ended. This reads the child's state in `/proc` instead (a
    /// zombie, or gone, is dead); Foundation still reaps it.
    ///
    /// ```swift
    /// server.killAndAwaitDeath()   // in a deinit, or any code that cannot await
    /// ```
    package func killAndAwaitDeath() {
        let pid = processIdentifier
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return }  // gone: reaped already
            // "pid (name) S …": the state follows the name, which may itself hold ") ".
            let state = stat[stat.index(after: close)...].dropFirst().first
            if state == "Z" || state == "X" { return }
            usleep(1_000)
        }
    }
}
