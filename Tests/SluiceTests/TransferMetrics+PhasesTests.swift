import Foundation
import Sluice
import Testing

/// Issue 44, item 4: the phases metrics and traces record, cut from a transport's marks.
@Suite struct TransferMetricsPhasesTests {
    func phases(_ metrics: TransferMetrics) -> [String] {
        metrics.phases.map { "\($0.name) \($0.duration.wholeMilliseconds) @\($0.end.wholeMilliseconds)" }
    }

    @Test func eachPhaseRunsFromTheMarkBeforeIt() {
        let fresh = TransferMetrics(
            nameLookup: .milliseconds(4), connect: .milliseconds(10), tlsHandshake: .milliseconds(25), firstByte: .milliseconds(70),
            total: .milliseconds(90))
        #expect(phases(fresh) == ["dns 4 @4", "connect 6 @10", "tls 15 @25", "first_byte 45 @70", "transfer 20 @90"])
        // Plain HTTP has no TLS mark; the first byte is counted from the connection.
        let plain = TransferMetrics(nameLookup: .milliseconds(1), connect: .milliseconds(3), firstByte: .milliseconds(8), total: .milliseconds(9))
        #expect(phases(plain) == ["dns 1 @1", "connect 2 @3", "first_byte 5 @8", "transfer 1 @9"])
    }

    @Test func aReusedConnectionsZeroMarksAreZeroPhasesAndNoPhaseIsNegative() {
        // curl reports a reused connection's TLS mark as 0, before the connect mark.
        let reused = TransferMetrics(
            nameLookup: .microseconds(20), connect: .microseconds(30), tlsHandshake: .zero, firstByte: .milliseconds(5), total: .milliseconds(6))
        #expect(reused.phases.map(\.name) == ["dns", "connect", "tls", "first_byte", "transfer"])
        #expect(reused.phases.allSatisfy { $0.duration >= .zero })
        #expect(reused.phases[2].duration == .zero)
        #expect(reused.phases.reduce(Duration.zero) { $0 + $1.duration } == .milliseconds(6))
        // Only the total: one transfer phase.
        #expect(phases(TransferMetrics(total: .milliseconds(7))) == ["transfer 7 @7"])
    }
}
