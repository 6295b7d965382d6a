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

    /// Reads `handle` to its end on a thread of its own, handing each chunk to `chunk` as it comes;
    /// the task ends at the end of the pipe (the child exited). The thread holds the handle, so its
    /// descriptor stays open while it reads. (A `readabilityHandler` is not safe for this: its last
    /// call can still be reading when it is cleared, and then reads a closed or reused descriptor
    /// once the pipe is released, which traps inside Foundation.)
    ///
    /// ```swift
    /// let reader = Blocking.readToEnd(pipe.fileHandleForReading) { lines.feed($0) }
    /// try process.run()
    /// // … kill the child …
    /// try await reader.value
    /// ```
    package static func readToEnd(_ handle: FileHandle, chunk: @escaping @Sendable (Data) -> Void) -> Task<Void, any Error> {
        Task {
            try await run {
                while case let data = try readSome(handle), !data.isEmpty { chunk(data) }
            }
        }
    }

    /// What one `read(2)` of `handle` gives: up to 64 KiB as soon as any is there, empty at the end,
    /// an error (not a trap, as `availableData` does) when the read fails. `FileHandle.read(upToCount:)`
    /// would wait for the whole count or the end.
    ///
    /// ```swift
    /// let data = try Blocking.readSome(pipe.fileHandleForReading)
    /// ```
    package static func readSome(_ handle: FileHandle) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { throw SluiceError(.other, "reading a pipe failed: \(String(cString: strerror(errno)))") }
        }
    }
}
