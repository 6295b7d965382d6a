import Dispatch
import Foundation

/// Runs a benchmark's async body from a synchronous `main` and exits with its status: the body
/// runs in a detached task while the main thread waits on a semaphore. Not top-level `await`, so
/// valgrind (callgrind, `make bench-instructions`) can run the program.
///
/// ```swift
/// SynchronousMain.run { try await measure() }
/// ```
public enum SynchronousMain {
    /// Runs `body`, then exits with the status it returns; a thrown error is printed after
    /// `program: ` on standard error and exits with 1.
    public static func run(_ program: String, _ body: sending @escaping () async throws -> Int32) -> Never {
        let finished = DispatchSemaphore(value: 0)
        let status = Status()
        Task.detached {
            do {
                status.value = try await body()
            } catch {
                FileHandle.standardError.write(Data("\(program): \(error)\n".utf8))
                status.value = 1
            }
            finished.signal()
        }
        finished.wait()
        exit(status.value)
    }

    /// The body's status. `@unchecked Sendable`: written once by the task before it signals the
    /// semaphore, and read only after the wait returns, which orders the two.
    private final class Status: @unchecked Sendable {
        var value: Int32 = 0
    }
}
