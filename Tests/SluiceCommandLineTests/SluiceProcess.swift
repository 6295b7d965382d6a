import Foundation
import Sluice
import SluiceCommandLine
import SluiceTestSupport
import SluiceTesting
import Testing

/// Runs the built `sluice` binary.
struct Sluice {
    struct Result: Sendable {
        let status: Int32
        let stdout: Data
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        }
    }

    static func binary() throws -> URL {
        try BuiltProducts.executable("sluice")
    }

    /// Starts it with `input` on its standard input (nothing, as from /dev/null, by default).
    static func start(
        _ arguments: [String], environment: [String: String] = [:], input: Data? = nil, directory: String? = nil, executable: URL? = nil
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try executable ?? binary()
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "SLUICE_LOG")
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        if let input {
            let stdin = Pipe()
            process.standardInput = stdin
            try process.run()
            // Written from a thread of its own, then closed: the end of the body. A child that
            // exits without reading it all leaves a broken pipe: SystemFile.write gives up (without
            // SIGPIPE, which would end the whole test run).
            Thread.detachNewThread {
                SystemFile.write(Array(input), to: stdin.fileHandleForWriting.fileDescriptor)
                try? stdin.fileHandleForWriting.close()
            }
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        return (process, stdout, stderr)
    }

    /// httpie's `http` (from the test servers' virtual environment, beside their python), run
    /// the same way, never reading standard input: the reference for the behaviours sluice takes
    /// from it.
    static func httpie(_ arguments: [String], directory: String? = nil) async throws -> Result {
        let python = try InteropServers.value("SLUICE_PYTHON")
        let http = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("http")
        return try await run(["--ignore-stdin"] + arguments, directory: directory, executable: http)
    }

    /// Runs it on a pseudo-terminal (through `script`), as a user at a terminal does, with
    /// `NO_COLOR` set; its output with the terminal's CRLF line ends made LF again. `typed` is
    /// what the user types at the terminal.
    static func runOnATerminal(_ arguments: [String], typed: Data? = nil) async throws -> Result {
        let quoted = ([try binary().path] + arguments).map { "'" + $0.replacing("'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", quoted.joined(separator: " "), "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "SLUICE_LOG")
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        if let typed {
            let keyboard = Pipe()
            process.standardInput = keyboard
            try process.run()
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.5)  // once the prompt has turned echo off
                SystemFile.write(Array(typed), to: keyboard.fileHandleForWriting.fileDescriptor)  // no SIGPIPE if it has exited
            }
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        return try await Blocking.run {
            let errors = Thread.detachedRead(stderr.fileHandleForReading)
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: out, as: UTF8.self).replacing("\r\n", with: "\n")
            return Result(status: process.terminationStatus, stdout: Data(text.utf8), stderr: String(decoding: errors(), as: UTF8.self))
        }
    }

    /// Runs it to the end, waiting on a thread of its own (not one of the cooperative threads).
    static func run(
        _ arguments: [String], environment: [String: String] = [:], input: Data? = nil, directory: String? = nil, executable: URL? = nil
    ) async throws -> Result {
        let (process, stdout, stderr) = try start(arguments, environment: environment, input: input, directory: directory, executable: executable)
        return try await Blocking.run {
            // Standard error is read on another thread at the same time, so neither pipe fills.
            let errors = Thread.detachedRead(stderr.fileHandleForReading)
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(status: process.terminationStatus, stdout: out, stderr: String(decoding: errors(), as: UTF8.self))
        }
    }
}

extension Thread {
    /// Starts reading `handle` to its end on a new thread; the returned function waits for the data.
    static func detachedRead(_ handle: FileHandle) -> @Sendable () -> Data {
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable {
            // Written once by the reading thread before it signals `done`; read only after the wait.
            var data = Data()
        }
        let box = Box()
        Thread.detachNewThread {
            box.data = handle.readDataToEndOfFile()
            done.signal()
        }
        return {
            done.wait()
            return box.data
        }
    }
}
