import Foundation
import Sluice
import SluiceServerSentEvents
import SluiceTestSupport
import Testing

/// SluiceServerSentEvents' public numbers driven with every hostile value of ``CallerNumbers``:
/// delays are held to 0...100 years before they double, a size limit of 0 or less refuses every
/// line, and nothing traps.
@Suite("Caller numbers: SluiceServerSentEvents")
struct ServerSentEventsCallerNumbersTests {
    @Test(
        .covers(
            "ServerSentEvents.Configuration.reconnectionDelay", "ServerSentEvents.Configuration.minReconnectionDelay",
            "ServerSentEvents.Configuration.maxReconnectionDelay", "ServerSentEvents.Configuration.reconnectionDelay(attempt:retry:) retry",
            "ServerSentEvents.Configuration.reconnectionDelay(attempt:retry:) attempt", "ServerSentEvent.retry"),
        arguments: CallerNumbers.durations)
    func delays(_ duration: Duration) {
        for change: (inout ServerSentEvents.Configuration) -> Void in [
            { $0.reconnectionDelay = duration }, { $0.minReconnectionDelay = duration }, { $0.maxReconnectionDelay = duration },
            {
                $0.minReconnectionDelay = duration
                $0.maxReconnectionDelay = duration
            },
        ] {
            var configuration = ServerSentEvents.Configuration()
            change(&configuration)
            for attempt in CallerNumbers.ints {
                for retry in [nil, duration] {
                    let delay = configuration.reconnectionDelay(attempt: attempt, retry: retry)
                    #expect(delay >= .zero && delay <= .seconds(3_155_760_000))
                }
            }
        }
        #expect(ServerSentEvent(data: "d", retry: duration).retry == duration)
    }

    @Test(.covers("ServerSentEvents.Configuration.maxReconnections"), arguments: CallerNumbers.ints)
    func maxReconnections(_ count: Int) {
        let configuration = ServerSentEvents.Configuration(maxReconnections: count)
        #expect(configuration.maxReconnections == count)
    }

    /// A limit of 0 or less refuses the first byte of a line; `Int.max` takes the event whole.
    @Test(
        .covers(
            "ServerSentEvents.Configuration.maxLineSize", "ServerSentEvents.Configuration.maxEventSize",
            "ServerSentEventParser.init(lastEventID:maxLineSize:maxEventSize:) maxLineSize",
            "ServerSentEventParser.init(lastEventID:maxLineSize:maxEventSize:) maxEventSize"),
        arguments: CallerNumbers.ints)
    func sizes(_ limit: Int) throws {
        for var parser in [ServerSentEventParser(maxLineSize: limit), ServerSentEventParser(maxEventSize: limit)] {
            let outcome = Result { () throws(SluiceError) -> [ServerSentEvent] in try parser.feed(Data("data: hello\n\n".utf8)) }
            if limit >= 11 {
                #expect(try outcome.get().map(\.data) == ["hello"])
            } else {
                #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge && "\($0)".contains("passed the limit of \(limit) bytes") }
            }
        }
    }
}
