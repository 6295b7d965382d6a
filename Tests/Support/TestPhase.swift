import Foundation

/// Which run of `make test` this is. A test of code that decides by latency (the adaptive
/// concurrency limit, hedging's delay) cannot run beside 800 others on two cores, whose stalls of
/// seconds the code would take for the server's: it runs in the serial run that follows the parallel
/// one (`SLUICE_TEST_PHASE=serial`, with `--filter`), alone, and is off in the parallel run.
///
/// ```swift
/// @Suite(.enabled(if: TestPhase.isSerial, "measures latency: runs in make test's serial run"))
/// struct ConvergenceTests {}
/// ```
package enum TestPhase {
    /// Whether this is the serial run.
    package static let isSerial = ProcessInfo.processInfo.environment["SLUICE_TEST_PHASE"] == "serial"
}
