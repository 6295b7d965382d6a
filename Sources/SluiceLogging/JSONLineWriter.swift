import Sluice

/// Writes one JSON object on one line, fields in the order given (callers give them sorted), into
/// one ``LineBuffer``: nested objects and arrays are written by the same writer into the same bytes.
/// Strings are escaped per RFC 8259 (`"`, `\`, control characters), and so are DEL, C1 and
/// bidirectional controls, which RFC 8259 lets stand but a terminal would act on; other UTF-8
/// passes through.
struct JSONLineWriter: ~Copyable {
    private var buffer = LineBuffer()
    /// No field written yet in the innermost open object.
    private var first = true

    init() {
        buffer.append(UInt8(ascii: "{"))
    }

    mutating func string(_ key: StaticString, _ value: String) {
        self.key(key)
        quote(value)
    }

    mutating func bool(_ key: StaticString, _ value: Bool) {
        self.key(key)
        buffer.append(contentsOf: value ? "true" : "false")
    }

    mutating func number(_ key: StaticString, _ value: some BinaryInteger) {
        self.key(key)
        buffer.append(integer: Int64(value))
    }

    /// `value` rounded to `places` decimals, as ``LineBuffer/append(_:places:)`` writes it.
    mutating func decimal(_ key: StaticString, _ value: Double, places: Int) {
        self.key(key)
        buffer.append(value, places: places)
    }

    mutating func object(_ key: StaticString, _ fill: (inout JSONLineWriter) -> Void) {
        self.key(key)
        nested(fill)
    }

    mutating func array<Element>(_ key: StaticString, _ elements: [Element], _ fill: (inout JSONLineWriter, Element) -> Void) {
        self.key(key)
        buffer.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            nested { fill(&$0, element) }
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// `[["name","value"],…]`: field order and repeats kept.
    mutating func pairs(_ key: StaticString, _ pairs: [(String, String)]) {
        self.key(key)
        buffer.append(UInt8(ascii: "["))
        for (index, pair) in pairs.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(UInt8(ascii: "["))
            quote(pair.0)
            buffer.append(UInt8(ascii: ","))
            quote(pair.1)
            buffer.append(UInt8(ascii: "]"))
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// `{"name":value,…}` for what modules attached and report, names sorted: a count as a
    /// number, a flag as a boolean, a label as a string. Names are the modules' own, so quoted.
    mutating func reported(_ key: StaticString, _ facts: [(name: String, value: ReportedValue)]) {
        self.key(key)
        buffer.append(UInt8(ascii: "{"))
        for (index, fact) in facts.sorted(by: { $0.name < $1.name }).enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            quote(fact.name)
            buffer.append(UInt8(ascii: ":"))
            switch fact.value {
            case .count(let count): buffer.append(integer: Int64(count))
            case .flag(let flag): buffer.append(contentsOf: flag ? "true" : "false")
            case .label(let label): quote(label)
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }

    consuming func finish() -> String {
        buffer.append(UInt8(ascii: "}"))
        return buffer.string
    }

    /// A comma when needed, then `"key":`. Keys are literals that need no escaping.
    private mutating func key(_ key: StaticString) {
        if !first { buffer.append(UInt8(ascii: ",")) }
        first = false
        buffer.append(UInt8(ascii: "\""))
        buffer.append(key)
        buffer.append("\":")
    }

    /// An object whose fields `fill` writes with this same writer.
    private mutating func nested(_ fill: (inout JSONLineWriter) -> Void) {
        buffer.append(UInt8(ascii: "{"))
        first = true
        fill(&self)
        buffer.append(UInt8(ascii: "}"))
        first = false
    }

    private mutating func quote(_ value: String) {
        buffer.append(UInt8(ascii: "\""))
        if value.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == 0x22 || $0 == 0x5C }) {
            // Quotes and backslashes as JSON needs, and every character that could drive a
            // terminal (C0, DEL, C1, bidirectional controls) as TerminalText escapes it for JSON:
            // a line read on a terminal cannot drive it.
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": buffer.append("\\\"")
                case "\\": buffer.append("\\\\")
                case "\n": buffer.append("\\n")
                case "\r": buffer.append("\\r")
                case "\t": buffer.append("\\t")
                default:
                    if TerminalText.isUnsafe(scalar) {
                        buffer.append(contentsOf: TerminalText.escape(String(scalar), style: .json))
                    } else {
                        buffer.append(contentsOf: String(scalar))
                    }
                }
            }
        } else {
            buffer.append(contentsOf: value)
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
