import Foundation
import Sluice

/// JSON laid out for a terminal from its tokens, never decoded and encoded again: every number,
/// string and escape is written with the text the server sent, keys stay in their order, and
/// only the whitespace between tokens changes (httpie's four-space indent). With colours, keys,
/// strings, numbers and literals are painted.
///
/// ```swift
/// JSONPrettyPrinter(colours: false).format(Data(#"{"b":1.10,"a":[]}"#.utf8))
/// // {
/// //     "b": 1.10,
/// //     "a": []
/// // }
/// ```
struct JSONPrettyPrinter {
    /// Whether to paint tokens with ANSI colours.
    let colours: Bool
    /// Spaces per level.
    var indent = 4

    /// `json` laid out, or nil when it is not one valid JSON text (it is then shown as text).
    /// JSON in UTF-16 or UTF-32 (told by its byte-order mark or by where its first bytes have
    /// zeros, as RFC 4627 §3 says) is decoded to UTF-8 first, so each token is read, and its
    /// controls escaped, as the characters it holds, never as the bytes that encode them.
    func format(_ json: Data) -> String? {
        guard let utf8 = Self.utf8(json), (try? JSONSerialization.jsonObject(with: utf8, options: [.fragmentsAllowed])) != nil else {
            return nil
        }
        let bytes = [UInt8](utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        var depth = 0
        var index = 0

        func newline() {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * indent))
        }
        func paint(_ code: String, _ token: ArraySlice<UInt8>) {
            guard colours else { return out.append(contentsOf: token) }
            out.append(contentsOf: Array("\u{1B}[\(code)m".utf8))
            out.append(contentsOf: token)
            out.append(contentsOf: Array("\u{1B}[0m".utf8))
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        /// The index of the next byte that is not whitespace, from `start`.
        func nextToken(from start: Int) -> Int {
            var at = start
            while at < bytes.count, isSpace(bytes[at]) { at += 1 }
            return at
        }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case _ where isSpace(byte):
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let next = nextToken(from: index + 1)
                if next < bytes.count, bytes[next] == (byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    out.append(bytes[next])  // an empty object or array stays on its line
                    index = next + 1
                } else {
                    depth += 1
                    newline()
                    index += 1
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // Foundation's parser lets a trailing comma through; JSON does not.
                if out.last(where: { !isSpace($0) }) == UInt8(ascii: ",") { return nil }
                depth -= 1
                newline()
                out.append(byte)
                index += 1
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
                index += 1
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                index += 1
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                end = min(end + 1, bytes.count)
                let after = nextToken(from: end)
                let isKey = after < bytes.count && bytes[after] == UInt8(ascii: ":")
                // JSON lets C1 and bidirectional controls stand raw in a string: they are written
                // as JSON escapes, so the text still reads as the same JSON.
                let token = bytes[index..<end]
                if token.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                    paint(isKey ? "34" : "33", token)
                } else {
                    paint(isKey ? "34" : "33", ArraySlice(TerminalText.escape(bytes: token, style: .json).utf8))
                }
                index = end
            default:
                // A number or a literal: everything up to the next structural byte or space.
                var end = index
                while end < bytes.count, !isSpace(bytes[end]), !"{}[],:\"".utf8.contains(bytes[end]) { end += 1 }
                let token = bytes[index..<end]
                paint(token.first.map { $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) } == true ? "36" : "35", token)
                index = max(end, index + 1)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `json` as UTF-8: as it is when it is UTF-8, else decoded from the UTF-16 or UTF-32 its
    /// byte-order mark or zeros say (the mark dropped); nil when it does not decode.
    static func utf8(_ json: Data) -> Data? {
        let head = [UInt8](json.prefix(4)) + [1, 1, 1, 1]
        let encoding: String.Encoding
        switch (head[0], head[1], head[2], head[3]) {
        case (0, 0, 0xFE, 0xFF), (0, 0, 0, _): encoding = .utf32BigEndian
        case (0xFF, 0xFE, 0, 0), (_, 0, 0, 0): encoding = .utf32LittleEndian
        case (0xFE, 0xFF, _, _), (0, _, _, _): encoding = .utf16BigEndian
        case (0xFF, 0xFE, _, _), (_, 0, _, _): encoding = .utf16LittleEndian
        default: return json
        }
        guard var text = String(data: json, encoding: encoding) else { return nil }
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        return Data(text.utf8)
    }
}
