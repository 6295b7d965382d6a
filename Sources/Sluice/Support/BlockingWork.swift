import Dispatch

/// Blocking work (SQLite, files, hiredis) kept off the transport's event threads (THREATS §15).
/// Called on an event thread (a task that prefers `CurlTransport`'s executor, or the takeover of
/// Swift's executor), the work goes to a thread of its own and the task waits without holding the
/// event thread, so a slow store delays its own caller only, never another call's transfer.
/// Anywhere else it runs in place, at no cost. `package`: for Sluice's own targets.
///
/// ```swift
/// let found = try await BlockingWork.run { try database.get(key) }
/// ```
package enum BlockingWork {
    /// The threads blocking work runs on when it is handed off.
    private static let queue = DispatchQueue(label: "sluice.blocking-work", attributes: .concurrent)

    /// Whether work started here would be handed off: the calling thread drives an event loop.
    package static var handsOff: Bool { EventThread.isCurrent }

    /// `body`'s result, computed off the event threads.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard EventThread.isCurrent else { return try body() }
        return try await ThreadSanitizer.withContinuation { continuation in
            queue.async { ThreadSanitizer.resume(continuation, with: Result { try body() }) }
        }
    }
}
