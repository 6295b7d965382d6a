/// Writes one JSON object on one line, fields in the order given (callers give them sorted).
/// Strings are escaped per RFC 8259: `"`, `\` and control characters.
struct JSONLineWriter {
    private var text = "{"
    private var first = true

    mutating func string(_ key: String, _ value: String) {
        raw(key, Self.quoted(value))
    }

    mutating func number(_ key: String, _ value: some BinaryInteger) {
        raw(key, String(value))
    }

    mutating func raw(_ key: String, _ json: String) {
        if !first { text += "," }
        first = false
        text += Self.quoted(key)
        text += ":"
        text += json
    }

    mutating func object(_ key: String, _ fill: (inout JSONLineWriter) -> Void) {
        var inner = JSONLineWriter()
        fill(&inner)
        raw(key, inner.finish())
    }

    mutating func array<Element>(_ key: String, _ elements: [Element], _ fill: (inout JSONLineWriter, Element) -> Void) {
        let items = elements.map { element -> String in
            var inner = JSONLineWriter()
            fill(&inner, element)
            return inner.finish()
        }
        raw(key, "[" + items.joined(separator: ",") + "]")
    }

    /// `[["name","value"],…]`: field order and repeats kept.
    mutating func pairs(_ key: String, _ pairs: [(String, String)]) {
        raw(key, "[" + pairs.map { "[" + Self.quoted($0.0) + "," + Self.quoted($0.1) + "]" }.joined(separator: ",") + "]")
    }

    func finish() -> String { text + "}" }

    static func quoted(_ value: String) -> String {
        var needsEscape = false
        for byte in value.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscape = true
            break
        }
        guard needsEscape else { return "\"" + value + "\"" }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
