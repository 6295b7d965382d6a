/// Follows the chunked framing of an HTTP/1.1 response body (RFC 9112 §7.1) as its raw bytes
/// arrive, only to tell where it ends: the last chunk and the empty line after any trailer fields.
/// curl decodes the chunks itself and says nothing when the last one came while it still sends
/// the request body, so a response that ends while a streamed request body is open (full
/// duplex) is ended for its reader by this. Lenient: curl checks the framing, and a scanner that
/// loses its way (a size line without a digit, a size that overflows) only stops, so the body
/// then ends with the transfer, as it would without it.
///
/// ```swift
/// var scanner = ChunkedFramingScanner()
/// scanner.scan(UnsafeRawBufferPointer(start: bytes, count: count))
/// if scanner.isComplete { endTheBodyForItsReader() }
/// ```
package struct ChunkedFramingScanner {
    private enum State {
        /// A chunk's size line: hex digits, then extensions up to its line feed.
        case sizeLine
        /// A chunk's data, with this many bytes to come.
        case data(UInt64)
        /// The line break after a chunk's data.
        case dataEnd
        /// The trailer section after the last chunk: its lines up to an empty one.
        case trailers
        case complete
        /// Lost its way: says nothing more.
        case stopped
    }

    private var state = State.sizeLine

    /// A scanner at the start of a body.
    package init() {}
    private var size: UInt64 = 0
    private var sawDigit = false
    private var inExtension = false
    /// Whether the trailer line being read has anything but its line break.
    private var lineHasContent = false

    /// Whether the framing's end (the last chunk and its trailer section) has been seen.
    package var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Follows `bytes`, the next bytes of the body as they came off the connection.
    package mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .complete, .stopped:
                return
            case .data(let left):
                let taken = min(left, UInt64(bytes.count - index))
                index += Int(taken)
                state = taken == left ? .dataEnd : .data(left - taken)
            case .dataEnd:
                if bytes[index] == 0x0A { startSizeLine() }
                index += 1
            case .sizeLine:
                sizeLine(bytes[index])
                index += 1
            case .trailers:
                switch bytes[index] {
                case 0x0A:
                    if !lineHasContent { state = .complete }
                    lineHasContent = false
                case 0x0D: break
                default: lineHasContent = true
                }
                index += 1
            }
        }
    }

    private mutating func startSizeLine() {
        state = .sizeLine
        size = 0
        sawDigit = false
        inExtension = false
    }

    private mutating func sizeLine(_ byte: UInt8) {
        if byte == 0x0A {
            guard sawDigit else {
                state = .stopped
                return
            }
            if size == 0 {
                state = .trailers
                lineHasContent = false
            } else {
                state = .data(size)
            }
            return
        }
        guard !inExtension, let digit = Self.hexValue(byte) else {
            if byte != 0x0D { inExtension = true }  // `;` and what follows, or whitespace before it
            return
        }
        guard size >> 60 == 0 else {
            state = .stopped  // past 2^64: curl refuses it
            return
        }
        size = size << 4 | UInt64(digit)
        sawDigit = true
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
