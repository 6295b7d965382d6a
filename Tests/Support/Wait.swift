import Foundation

/// Waiting for a state instead of sleeping for a guessed time: polls `condition` every few
/// milliseconds until it holds, and throws ``TimedOut`` (which says what never happened) after
/// `timeout`. The default is generous because CI machines are loaded; a passing test waits only
/// as long as it must.
///
/// ```swift
/// try await Wait.until("three requests are held") { server.requests.count == 3 }
/// ```
package enum Wait {
    package struct TimedOut: Error, CustomStringConvertible {
        package let what: String
        package let timeout: Duration
        package var description: String { "timed out after \(timeout) waiting until \(what)" }
    }

    package static func until(_ what: String, timeout: Duration = TestTiming.scaled(.seconds(60)), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what, timeout: timeout) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
