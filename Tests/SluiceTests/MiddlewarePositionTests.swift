import Sluice
import Testing

@Suite("MiddlewarePosition")
struct MiddlewarePositionTests {
    /// The table, in the order its doc comment gives: every named position, the modules' included.
    static let table: [MiddlewarePosition] = [
        .hud, .tracing, .metrics, .logging, .harRecording, .headers, .urlEncoding, .application, .redirects, .cache, .outbox, .retry,
        .hedging, .attemptTracing, .circuitBreaker, .reachability, .concurrencyLimit, .deadlineHeader, .gzip, .encryption, .signing,
        .network,
    ]

    /// No two named positions share a rank, so no order depends on the order middleware were
    /// added in (tracing, metrics, logging and HAR recording shared `.logging` before).
    @Test func everyNamedPositionHasARankOfItsOwnInTheTablesOrder() {
        for (outer, inner) in zip(Self.table, Self.table.dropFirst()) {
            #expect(outer < inner, "\(outer) is not outside \(inner)")
        }
        #expect(Set(Self.table.map(\.rank)).count == Self.table.count)
        #expect(Set(Self.table.map(\.name)).count == Self.table.count)
    }

    /// `after` and `before` stay between a position and its neighbours in the table.
    @Test func afterAndBeforeStayBetweenNeighbours() {
        for (outer, inner) in zip(Self.table, Self.table.dropFirst()) {
            #expect(outer < .after(outer) && .after(outer) < inner, "after(\(outer))")
            #expect(outer < .before(inner) && .before(inner) < inner, "before(\(inner))")
        }
    }
}
