import Foundation

/// One renewal at a time: calls that saw the same expired session share the renewal that the
/// first of them started.
actor SingleFlight {
    private var running: (expired: String, task: Task<String, any Error>)?
    private var lastRenewed: (expired: String, session: String)?

    func run(replacing expired: String, _ renew: @escaping @Sendable () async throws -> String) async throws -> String {
        if let lastRenewed, lastRenewed.expired == expired { return lastRenewed.session }
        if let running, running.expired == expired { return try await running.task.value }
        let task = Task { try await renew() }
        running = (expired, task)
        defer { running = nil }
        let session = try await task.value
        lastRenewed = (expired, session)
        return session
    }
}
