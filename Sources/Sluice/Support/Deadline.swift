/// The watchdog a call with a limit runs under: `Client.send` with a timeout or deadline, and the
/// `sluice` command's `--timeout`. `package`: one mechanism for both, not API.
package enum Deadline {
    /// `work`'s result, or `timedOut()` thrown once `deadline` passes (and `work` cancelled). A
    /// result that arrived as the deadline passed (both woke late on a busy machine) stands, and
    /// an error of `work`'s own stays its error: only work cut off by the deadline times out. A
    /// cancelled caller gets `CancellationError`.
    package static func race<Result: Sendable>(
        _ deadline: ContinuousClock.Instant, timedOut: () -> any Error, _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(clampingUntil: deadline)
                return nil
            }
            defer { group.cancelAll() }
            if let first = try await group.next(), let result = first { return result }
            group.cancelAll()
            do {
                if let second = try await group.next(), let result = second { return result }
            } catch {
                let cutOff = SluiceError.isCancellation(error)
                if !cutOff { throw error }
            }
            throw timedOut()
        }
    }
}
