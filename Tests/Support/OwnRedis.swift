import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// A redis-server of the test's own, on a port it keeps across a kill and a restart.
package final class OwnRedis: Sendable {
    package var port: Int { state.withLock { $0.port } }
    private let state = Locked((port: Loopback.freePort(), started: false))
    private let process = Locked<Process?>(nil)

    package init() {}

    deinit { kill() }

    /// Starts it on its port. The first start takes another free port when the server exits at
    /// once (another process took the port between its pick and the bind); a restart keeps it.
    package func start() async throws {
        for attempt in 1...3 {
            let server = Process()
            server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            server.arguments = ["redis-server", "--bind", "127.0.0.1", "--port", "\(port)", "--save", "", "--appendonly", "no"]
            server.standardOutput = FileHandle.nullDevice
            // Not the test process's standard error either: a server left running by a test
            // process that crashed would hold `swift test`'s pipe open, and the run would never end.
            server.standardError = FileHandle.nullDevice
            try server.run()
            process.withLock { $0 = server }
            let port = self.port
            let pid = server.processIdentifier
            try await Wait.until("redis-server on port \(port) listens") { Loopback.listens(port, process: pid) || !server.isRunning }
            if server.isRunning {
                state.withLock { $0.started = true }
                return
            }
            guard attempt < 3, !state.withLock({ $0.started }) else { break }
            state.withLock { $0.port = Loopback.freePort() }
        }
        throw Exited(port: port)
    }

    package struct Exited: Error, CustomStringConvertible {
        let port: Int
        package var description: String { "redis-server exited at once on port \(port), three times" }
    }

    /// SIGSTOP or SIGCONT: a server that stops answering without closing its connections.
    package func signal(_ number: Int32) {
        if let server = process.withLock({ $0 }) { Glibc.kill(server.processIdentifier, number) }
    }

    /// SIGKILL, as a crash or an OOM kill would.
    package func kill() {
        guard
            let server = process.withLock({ process -> Process? in
                defer { process = nil }; return process
            })
        else { return }
        // Not `waitUntilExit`, which can hold a pool thread for good (see `killAndAwaitDeath`).
        server.killAndAwaitDeath()
    }
}
