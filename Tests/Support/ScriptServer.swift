import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// A test server written in Python under `Tests/Servers/` (for what neither nginx, httpbin nor
/// `MockWebServer` can script), run with the interop venv's Python (`SLUICE_PYTHON`). The script
/// prints its port on its first line, then lines a test reads through ``lines``; it exits when its
/// standard input ends, which this holds open, so it never outlives the test, even a crash.
///
/// ```swift
/// let server = try await ScriptServer.start("duplex.py")
/// let url = URL(string: "http://127.0.0.1:\(server.port)/length")!
/// ```
package final class ScriptServer: Sendable {
    package let port: Int
    private let process: Process
    private let output: Pipe
    /// Held open while this lives.
    private let input: Pipe
    private let received = Locked([String]())

    /// Starts `Tests/Servers/<script>` with `arguments` and reads its port, on a thread of its
    /// own (the read blocks).
    package static func start(_ script: String, arguments: [String] = []) async throws -> ScriptServer {
        try await Blocking.run { try ScriptServer(script: script, arguments: arguments) }
    }

    private init(script: String, arguments: [String]) throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Servers/\(script)")
        process = Process()
        process.executableURL = URL(fileURLWithPath: try InteropServers.value("SLUICE_PYTHON"))
        process.arguments = [path.path] + arguments
        output = Pipe()
        input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var first = Data()
        while !first.contains(0x0A) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw SluiceError(.other, "\(script) exited before it listened") }
            first.append(byte)
        }
        port = Int(String(decoding: first.dropLast(), as: UTF8.self)) ?? 0
        // Its lines, read on a thread of their own until it exits.
        let (lines, pending) = (received, Locked(Data()))
        _ = Blocking.readToEnd(output.fileHandleForReading) { chunk in
            let complete = pending.withLock { pending -> [String] in
                pending.append(chunk)
                var complete: [String] = []
                while let end = pending.firstIndex(of: 0x0A) {
                    complete.append(String(decoding: pending[pending.startIndex..<end], as: UTF8.self))
                    pending = Data(pending[(end + 1)...])
                }
                return complete
            }
            lines.withLock { $0 += complete }
        }
    }

    /// The lines the script printed after its port, so far.
    package var lines: [String] { received.withLock { $0 } }

    /// The lines so far, once at least `count` have come.
    ///
    /// - Throws: ``Wait/TimedOut`` when they do not.
    package func lines(count: Int) async throws -> [String] {
        try await Wait.until("the server printed \(count) lines") { lines.count >= count }
        return lines
    }

    deinit {
        // SIGKILL: a child started from a thread that blocks SIGTERM may inherit the block. Not
        // `waitUntilExit`, which can hold a pool thread for good (see `killAndAwaitDeath`).
        process.killAndAwaitDeath()
    }
}
