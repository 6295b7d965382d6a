import Foundation

/// Wall-clock bounds in tests, stretched when the code runs slower by design: under
/// ThreadSanitizer every memory access is checked, and `make test-tsan` sets
/// `SLUICE_TEST_TIME_SCALE=5`. A bound that says "at once, not after the 30 s timer" stays a real
/// check at five times its length.
///
/// ```swift
/// #expect(started.duration(to: .now) < TestTiming.scaled(.seconds(2)))
/// ```
package enum TestTiming {
    /// `SLUICE_TEST_TIME_SCALE`, or 1.
    package static let scale: Int = ProcessInfo.processInfo.environment["SLUICE_TEST_TIME_SCALE"].flatMap { Int($0) }.map { max(1, $0) } ?? 1

    /// `duration` times ``scale``.
    package static func scaled(_ duration: Duration) -> Duration { duration * scale }
}
