import Foundation

extension Redaction {
    /// JSON text with the value of every hidden key (a hidden parameter or header name, at any
    /// depth) replaced by `"<redacted>"` where it stands, and every other byte as it was: what a
    /// log shows of a body as it was sent, where ``json(_:)`` would re-serialise it. Text that is
    /// not JSON comes back unchanged when it has no hidden key, and `nil` when its structure is
    /// broken past the point a hidden key was found (the caller then shows it another way).
    ///
    /// ```swift
    /// Redaction.default.jsonText(#"{"user":"ann", "password":"pw-1","n":[1]}"#)
    /// // #"{"user":"ann", "password":"<redacted>","n":[1]}"#
    /// ```
    package func jsonText(_ text: String) -> String? {
        guard isEnabled else { return text }
        let bytes = Array(text.utf8)
        var replaced: [Range<Int>] = []
        var containers: [Bool] = []  // true: an object
        var expectsKey = false
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                containers.append(true); expectsKey = true; index += 1
            case UInt8(ascii: "["):
                containers.append(false); expectsKey = false; index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = containers.popLast(); expectsKey = false; index += 1
            case UInt8(ascii: ","):
                expectsKey = containers.last == true; index += 1
            case UInt8(ascii: "\""):
                guard let end = Self.endOfString(bytes, at: index) else { return replaced.isEmpty ? text : nil }
                defer { expectsKey = false }
                guard expectsKey else { index = end; continue }
                var valueStart = end
                while valueStart < bytes.count, bytes[valueStart] != UInt8(ascii: ":") { valueStart += 1 }
                valueStart += 1
                while valueStart < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[valueStart]) { valueStart += 1 }
                guard valueStart < bytes.count, hidesKey(Self.decodedKey(bytes[(index + 1)..<(end - 1)])) else {
                    index = end; continue
                }
                guard let valueEnd = Self.endOfValue(bytes, at: valueStart) else { return nil }
                replaced.append(valueStart..<valueEnd)
                index = valueEnd
            default:
                index += 1
            }
        }
        guard !replaced.isEmpty else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var from = 0
        for range in replaced {
            result += bytes[from..<range.lowerBound]
            result += Array("\"\(Self.placeholder)\"".utf8)
            from = range.upperBound
        }
        result += bytes[from...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The index after the string that starts with the quote at `start`, or nil when it does not end.
    private static func endOfString(_ bytes: [UInt8], at start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// The index after the value that starts at `start`: a string, a nested object or array
    /// (strings inside skipped whole), or a number or literal.
    private static func endOfValue(_ bytes: [UInt8], at start: Int) -> Int? {
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(bytes, at: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0, index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard let end = endOfString(bytes, at: index) else { return nil }
                    index = end; continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return nil
        default:
            var index = start
            while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                index += 1
            }
            return index
        }
    }

    /// A key's text: as it is, or through JSON's own decoding when it has an escape.
    private static func decodedKey(_ raw: ArraySlice<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        let quoted = Data([UInt8(ascii: "["), UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\""), UInt8(ascii: "]")])
        return ((try? JSONSerialization.jsonObject(with: quoted)) as? [String])?.first ?? String(decoding: raw, as: UTF8.self)
    }
}
