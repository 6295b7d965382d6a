import Foundation

/// One phase of a transfer, for metrics and traces: how long it took, and when it ended counted
/// from the transfer's start.
package struct TransferPhase: Sendable, Hashable {
    /// `dns`, `connect`, `tls`, `first_byte` or `transfer`.
    package let name: String
    package let duration: Duration
    /// When it ended, from the transfer's start.
    package let end: Duration
}

extension TransferMetrics {
    /// The transfer cut into phases that do not overlap, from the marks a transport records (each
    /// counted from the transfer's start, as curl counts them): `dns` up to ``nameLookup``,
    /// `connect` from there to ``connect``, `tls` from there to ``tlsHandshake``, `first_byte`
    /// from the connection's being ready (the request sent, the server's work) to ``firstByte``,
    /// and `transfer` from there to ``total``. A phase whose mark is missing is left out
    /// (`CurlTransport` leaves out a mark curl reports as 0: TLS on plain HTTP or on a reused
    /// connection). A mark earlier than the one before it counts as that one, so no phase is
    /// negative.
    package var phases: [TransferPhase] {
        var phases: [TransferPhase] = []
        phases.reserveCapacity(5)
        var last = Duration.zero
        func add(_ name: String, _ mark: Duration?) {
            guard let mark else { return }
            let end = max(mark, last)
            phases.append(TransferPhase(name: name, duration: end - last, end: end))
            last = end
        }
        add("dns", nameLookup)
        add("connect", connect)
        add("tls", tlsHandshake)
        add("first_byte", firstByte)
        add("transfer", total)
        return phases
    }
}
