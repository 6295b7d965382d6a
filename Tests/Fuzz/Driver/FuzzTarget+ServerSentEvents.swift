import Foundation
import Sluice
import SluiceServerSentEvents

extension FuzzTarget {
    /// `ServerSentEventParser` with 4 KiB limits: no event's data passes the limit, a failure is
    /// `.bodyTooLarge`, a `retry:` is never negative, and the events do not depend on how the
    /// stream was cut into chunks.
    static let serverSentEvents = FuzzTarget(name: "server-sent-events", summary: "the event-stream parser (WHATWG)") { data in
        func parse(_ pieces: [Data]) -> Result<([ServerSentEvent], Duration?), SluiceError> {
            var parser = ServerSentEventParser(maxLineSize: 4_096, maxEventSize: 4_096)
            return Result { () throws(SluiceError) -> ([ServerSentEvent], Duration?) in
                var events: [ServerSentEvent] = []
                for piece in pieces { events += try parser.feed(piece) }
                return (events, parser.retry)
            }
        }
        let cut = data.isEmpty ? 0 : Int(data[data.startIndex]) % (data.count + 1)
        let whole = parse([data]), halves = parse([data.prefix(cut), data.dropFirst(cut)])
        switch (whole, halves) {
        case (.success(let one), .success(let two)):
            require(one.0 == two.0, "\(one.0.count) events whole, \(two.0.count) cut at \(cut)")
            require(one.1 == two.1, "retry \(String(describing: one.1)) whole, \(String(describing: two.1)) cut")
            require(one.0.allSatisfy { $0.data.utf8.count <= 4_096 }, "an event past the limit")
            if let retry = one.1 { require(retry >= .zero, "a retry of \(retry)") }
        case (.failure(let error), _), (_, .failure(let error)):
            require(error.code == .bodyTooLarge, "parsing failed with \(error.code): \(error)")
        }
    }
}
