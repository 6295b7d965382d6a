import Foundation
import SluiceServerSentEvents
import Testing

@Suite("ServerSentEventParser")
struct ServerSentEventParserTests {
    /// Everything `text` gives, fed whole and fed one byte at a time: the two must agree.
    func events(_ text: String) -> [ServerSentEvent] {
        var whole = ServerSentEventParser()
        let all = try! whole.feed(Data(text.utf8))
        var bytewise = ServerSentEventParser()
        let one = Data(text.utf8).flatMap { try! bytewise.feed(Data([$0])) }
        #expect(all == one, "fed whole and byte by byte differ")
        return all
    }

    @Test func dataLinesJoinWithNewlines() {
        #expect(events("data: YHOO\ndata: +2\ndata: 10\n\n").map(\.data) == ["YHOO\n+2\n10"])
    }

    @Test func commentsIdsAndTheOneSpaceAfterTheColon() {
        let parsed = events(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n")
        #expect(parsed.map(\.data) == ["first event", "second event", " third event"])
        #expect(parsed.map(\.lastEventID) == ["1", "", ""])
    }

    @Test func emptyDataAndAnUnfinishedEventAtTheEnd() {
        #expect(events("data\n\ndata\ndata\n\ndata:").map(\.data) == ["", "\n"])
        #expect(events("data:test\n\ndata: test\n\n").map(\.data) == ["test", "test"])
    }

    @Test func everyLineEndingAndTheEventType() {
        let parsed = events("event: price\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\n")
        #expect(parsed.map(\.type) == ["price", "message", "message"])
        #expect(parsed.map(\.data) == ["1", "2", "3"])
    }

    @Test func retryTakesOnlyDigitsAndAnIDWithNULIsIgnored() throws {
        let parsed = events("retry: 2500\nid: a\ndata: x\n\nretry: 1s\nid: b\u{0}c\ndata: y\n\n")
        #expect(parsed.map(\.retry) == [.milliseconds(2500), nil])
        #expect(parsed.map(\.lastEventID) == ["a", "a"])
        var parser = ServerSentEventParser()
        _ = try parser.feed(Data("retry: 2500\n\nretry: x\n\n".utf8))
        #expect(parser.retry == .milliseconds(2500))
    }

    @Test func aByteOrderMarkIsDroppedEvenSplitAcrossChunks() throws {
        var parser = ServerSentEventParser()
        var parsed = try parser.feed(Data([0xEF, 0xBB]))
        parsed += try parser.feed(Data([0xBF]) + Data("data: after the mark\n\n".utf8))
        #expect(parsed.map(\.data) == ["after the mark"])
        #expect(events("\u{FEFF}data: a\n\n").map(\.data) == ["a"])
    }

    @Test func unknownFieldsAreIgnored() {
        #expect(events("foo: bar\ndata: kept\n\n") == [ServerSentEvent(data: "kept")])
    }
}
