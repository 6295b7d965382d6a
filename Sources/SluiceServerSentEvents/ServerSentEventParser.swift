import Foundation
import Sluice

/// Turns the bytes of a `text/event-stream` into events, chunk by chunk, as the WHATWG HTML
/// standard's "event stream interpretation" says: lines end with CR, LF or CRLF; `data`, `event`,
/// `id` and `retry` fields; `:` comments; an event is dispatched at a blank line; a leading
/// byte-order mark is dropped.
///
/// ```swift
/// import Foundation
/// import SluiceServerSentEvents
///
/// var parser = ServerSentEventParser()
/// let events = try parser.feed(Data("data: hello\n\n".utf8))   // [ServerSentEvent(data: "hello")]
/// ```
public struct ServerSentEventParser: Sendable {
    /// The most bytes one line may have (8 MiB by default); a longer one is `.bodyTooLarge`.
    public let maxLineSize: Int
    /// The most bytes of data one event may gather before its blank line (8 MiB by default).
    public let maxEventSize: Int
    private var line: [UInt8] = []
    private var sawCR = false
    private var started = false
    private var data = ""
    private var hasData = false
    private var type = ""
    /// The last event id: kept across events (and reconnections).
    public private(set) var lastEventID = ""
    /// The reconnection delay the stream asked for last, if any.
    public private(set) var retry: Duration?
    private var retryChanged = false

    /// A parser that starts from `lastEventID`, with the limits given.
    public init(lastEventID: String = "", maxLineSize: Int = 8 << 20, maxEventSize: Int = 8 << 20) {
        self.lastEventID = lastEventID
        self.maxLineSize = maxLineSize
        self.maxEventSize = maxEventSize
    }

    /// The events `chunk` completes.
    ///
    /// - Throws: `.bodyTooLarge` when a line passes ``maxLineSize`` or an event's data passes
    ///   ``maxEventSize`` (a stream whose lines or events never end).
    public mutating func feed(_ chunk: Data) throws(SluiceError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var bytes = [UInt8](chunk)
        if !started {
            // A byte-order mark at the very start is dropped (it may come split across chunks).
            bytes = line + bytes
            line = []
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            if bytes.count < 3, bom.starts(with: bytes) {
                line = bytes
                return []
            }
            started = true
            if bytes.starts(with: bom) { bytes.removeFirst(3) }
        }
        for byte in bytes {
            if sawCR {
                sawCR = false
                if byte == 0x0A { continue }  // the LF of a CRLF
            }
            if byte == 0x0D || byte == 0x0A {
                sawCR = byte == 0x0D
                if let event = process(line) { events.append(event) }
                line.removeAll(keepingCapacity: true)
                if data.utf8.count > maxEventSize {
                    throw SluiceError(
                        .bodyTooLarge, "an event's data passed the limit of \(maxEventSize) bytes (ServerSentEventParser.maxEventSize) before its blank line")
                }
            } else {
                line.append(byte)
                if line.count > maxLineSize {
                    throw SluiceError(.bodyTooLarge, "a line of the event stream passed the limit of \(maxLineSize) bytes (ServerSentEventParser.maxLineSize)")
                }
            }
        }
        return events
    }

    /// One complete line; the event it dispatches, if any.
    private mutating func process(_ bytes: [UInt8]) -> ServerSentEvent? {
        if bytes.isEmpty { return dispatch() }
        if bytes.first == 0x3A { return nil }  // a comment
        let name: String
        var value: String
        if let colon = bytes.firstIndex(of: 0x3A) {
            name = String(decoding: bytes[..<colon], as: UTF8.self)
            var rest = bytes[(colon + 1)...]
            if rest.first == 0x20 { rest = rest.dropFirst() }
            value = String(decoding: rest, as: UTF8.self)
        } else {
            name = String(decoding: bytes, as: UTF8.self)
            value = ""
        }
        switch name {
        case "event": type = value
        case "data":
            data += value + "\n"
            hasData = true
        case "id":
            if !value.unicodeScalars.contains("\0") { lastEventID = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let milliseconds = Int(value) {
                retry = .milliseconds(milliseconds)
                retryChanged = true
            }
        default: break  // ignored, as the standard says
        }
        value = ""
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data = ""
            hasData = false
            type = ""
            retryChanged = false
        }
        guard hasData else { return nil }
        if data.hasSuffix("\n") { data.removeLast() }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, lastEventID: lastEventID, retry: retryChanged ? retry : nil)
    }
}
