import Foundation
import Sluice

/// Runs blocking work (waiting for a child process, reading a pipe to its end) on a thread of
/// its own, so a test that awaits it does not hold one of Swift's few cooperative threads: on a
/// 2-core machine, two blocked tests would stall every other test in the run.
///
/// ```swift
/// let output = try await Blocking.run {
///     let data = pipe.fileHandleForReading.readDataToEndOfFile()
///     process.waitUntilExit()
///     return data
/// }
/// ```
package enum Blocking {
    package static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await ThreadSanitizer.withContinuation { continuation in
            let thread = Thread { ThreadSanitizer.resume(continuation, with: Swift.Result { try body() }) }
            thread.name = "sluice-test-blocking"
            thread.start()
        }
    }

    /// Starts `process` with its standard output (and with `mergingErrors` its standard error too)
    /// into one pipe, reads the pipe to its end and waits for the exit, on a thread of its own.
    ///
    /// ```swift
    /// let (output, status) = try await Blocking.output(of: process, mergingErrors: true)
    /// ```
    package static func output(of process: Process, mergingErrors: Bool = false) async throws -> (output: Data, status: Int32) {
        let pipe = Pipe()
        process.standardOutput = pipe
        if mergingErrors { process.standardError = pipe }  // one pipe, read to its end: neither can fill
        try process.run()
        return try await run {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (data, process.terminationStatus)
        }
    }
}
