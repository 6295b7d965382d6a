/// The one escaping of text a peer influenced (a body, a JSON string, a reason phrase, a field
/// name or value, an error message, a file name) on its way to a terminal: every path that
/// writes such text to one (the `sluice` command, the logger's text and JSON lines, the terminal
/// HUD) goes through ``escape(_:keepingLineBreaks:style:)``, so none of them can be made to
/// drive the terminal (retitle it, move the cursor, rewrite what was shown, reorder a line).
/// `package`: for Sluice's own modules.
///
/// What is escaped: C0 controls (ESC, BEL, CR, NUL…; LF and tab too unless line breaks are kept),
/// DEL, C1 controls (U+0080–U+009F, CSI U+009B and NEL U+0085 among them), the line and paragraph
/// separators (U+2028, U+2029: with LF, CR, VT, FF and NEL, every scalar that breaks a line) and
/// the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, the "Trojan
/// Source" characters). Bytes
/// are read as UTF-8 first, so other encodings cannot smuggle a control through: a lone 0x9B
/// byte (CSI in an 8-bit terminal), an overlong form of ESC and any invalid sequence become
/// U+FFFD.
///
/// ```swift
/// import Sluice
///
/// TerminalText.escape("OK\u{1B}]0;pwned\u{07}")              // OK\u{1B}]0;pwned\u{07}
/// TerminalText.escape("a\u{9B}2J", style: .json)              // a\u009b2J
/// TerminalText.escape(bytes: [0x41, 0x9B, 0x32, 0x4A])        // A\u{FFFD}2J, as text
/// ```
package enum TerminalText {
    /// How an escaped character is written.
    package enum Style: Sendable {
        /// As a Swift escape: `\u{1B}`, `\r`, `\t`.
        case swift
        /// As a JSON escape, `\u001b` (UTF-16 units), so a JSON string stays valid JSON.
        case json
    }

    /// Whether `scalar` can drive a terminal or break a line: C0 (less LF and tab when
    /// `keepingLineBreaks`), DEL, C1, U+2028, U+2029 or a bidirectional control.
    @inline(__always)
    package static func isUnsafe(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool = false) -> Bool {
        let value = scalar.value
        if value < 0x20 { return !(keepingLineBreaks && (value == 0x0A || value == 0x09)) }
        if value < 0x7F { return false }
        if value <= 0x9F { return true }
        // The bidirectional controls, and U+2028 and U+2029, the line and paragraph separators
        // (Unicode's other mandatory breaks, VT, FF and NEL, are C0 and C1): a log line with one
        // reads as two to a reader that breaks on them.
        return value == 0x061C || value == 0x200E || value == 0x200F || value == 0x2028 || value == 0x2029
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// `text` with every character that can drive a terminal escaped in `style`.
    ///
    /// - Parameter keepingLineBreaks: keep LF and tab as they are, for multi-line text such as a body.
    package static func escape(_ text: String, keepingLineBreaks: Bool = false, style: Style = .swift) -> String {
        // Printable ASCII (and LF and tab when kept) is safe, read as bytes: a log line's URL and
        // reason phrase cost a scan of their bytes. Anything else is looked at as scalars.
        var text = text
        let safe = text.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte >= 0x7F {
                guard keepingLineBreaks, byte == 0x0A || byte == 0x09 else { return false }
            }
            return true
        }
        if safe { return text }
        return escapeScalars(text, keepingLineBreaks: keepingLineBreaks, style: style)
    }

    /// `text` that may hold something to escape, looked at scalar by scalar.
    private static func escapeScalars(_ text: String, keepingLineBreaks: Bool, style: Style) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0, keepingLineBreaks: keepingLineBreaks) }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar, keepingLineBreaks: keepingLineBreaks) else {
                result.append(scalar)
                continue
            }
            switch style {
            case .swift:
                result.append(contentsOf: scalar.escaped(asASCII: true).unicodeScalars)
            case .json:
                for unit in String(scalar).utf16 {
                    let digits = String(unit, radix: 16)
                    result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - digits.count) + digits).unicodeScalars)
                }
            }
        }
        return String(result)
    }

    /// `bytes` read as UTF-8 (an invalid or overlong sequence becomes U+FFFD), then escaped.
    package static func escape(bytes: some Collection<UInt8>, keepingLineBreaks: Bool = false, style: Style = .swift) -> String {
        escape(String(decoding: bytes, as: UTF8.self), keepingLineBreaks: keepingLineBreaks, style: style)
    }
}
