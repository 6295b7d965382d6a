import Foundation

/// Wall-clock bounds in tests, stretched when the code runs slower by design: under
/// ThreadSanitizer every memory access is checked, and `make test-tsan` sets
/// `SLUICE_TEST_TIME_SCALE=5`. A bound that says "at once, not after the 30 s timer" stays a real
/// check at five times its length.
///
/// A full run on a 2-core machine stalls every task for up to about 10 s at a time (the stress
/// tests' child processes take both cores), so a bound is at least 30 s, and the outcome it rules
/// out (a timer, a server's delay) lies beyond five times the bound: 300 s or more.
///
/// ```swift
/// #expect(started.duration(to: .now) < TestTiming.scaled(.seconds(30)))
/// ```
package enum TestTiming {
    /// `SLUICE_TEST_TIME_SCALE`, or 1.
    package static let scale: Int = ProcessInfo.processInfo.environment["SLUICE_TEST_TIME_SCALE"].flatMap { Int($0) }.map { max(1, $0) } ?? 1

    /// `duration` times ``scale``.
    package static func scaled(_ duration: Duration) -> Duration { duration * scale }
}
