/// The watchdog a call with a limit runs under: `Client.send` with a timeout or deadline, and the
/// `sluice` command's `--timeout`. `package`: one mechanism for both, not API.
package enum Deadline {
    /// `work`'s result, or `timedOut()` thrown once `deadline` passes (and `work` cancelled). A
    /// result that arrived as the deadline passed (both woke late on a busy machine) stands, and
    /// an error of `work`'s own stays its error: only work cut off by the deadline times out. A
    /// `.timedOut` of `work`'s own that came as the deadline passed (curl's timer, set from the
    /// same deadline, can beat the watchdog) is the deadline's too: the caller gets one error
    /// whichever noticed first. A cancelled caller gets `CancellationError`.
    package static func race<Result: Sendable>(
        _ deadline: ContinuousClock.Instant, timedOut: () -> any Error, _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                do {
                    return try await work()
                } catch let error as SluiceError where error.code == .timedOut && RequestContext.hasPassed(deadline) {
                    return nil
                }
            }
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
