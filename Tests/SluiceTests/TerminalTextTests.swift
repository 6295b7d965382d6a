import Foundation
import Sluice
import Testing

/// Issue 27, item 8: one escaping function for every path that writes what a peer sent to a
/// terminal, covering C0, DEL, C1, the bidirectional controls and bytes in other encodings.
@Suite("TerminalText: the one escaping on the way to a terminal")
struct TerminalTextTests {
    /// Every scalar that can drive a terminal or break a line, and none that cannot.
    @Test func itEscapesEveryControlAndNothingElse() {
        var unsafe: [UInt32] = []
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value), TerminalText.isUnsafe(scalar) else { continue }
            unsafe.append(value)
        }
        let expected =
            Array(0..<0x20) + Array(0x7F...0x9F) + [0x061C, 0x200E, 0x200F, 0x2028, 0x2029] + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        #expect(unsafe == expected.map { UInt32($0) })
        #expect(TerminalText.isUnsafe("\n", keepingLineBreaks: true) == false && TerminalText.isUnsafe("\r", keepingLineBreaks: true))
    }

    @Test func swiftAndJSONStyles() {
        let hostile = "ok\u{1B}]0;t\u{07} \u{9B}2J \u{202E}txt.exe\u{2066} é✓"
        #expect(TerminalText.escape(hostile) == #"ok\u{1B}]0;t\u{07} \u{009B}2J \u{202E}txt.exe\u{2066} é✓"#)
        #expect(TerminalText.escape(hostile, style: .json) == #"ok\u001b]0;t\u0007 \u009b2J \u202etxt.exe\u2066 é✓"#)
        #expect(TerminalText.escape("a\r\nb\tc\u{7F}", keepingLineBreaks: true) == "a\\r\nb\tc\\u{7F}")
        #expect("Café ✓ plain".escapingControlCharacters() == "Café ✓ plain")
    }

    /// Bytes are read as UTF-8 first: a lone C1 byte (CSI in an 8-bit terminal), an overlong ESC
    /// and Latin-1 text cannot pass as controls; UTF-8 C1 is escaped like any other.
    @Test func bytesInOtherEncodingsCannotSmuggleAControl() {
        #expect(TerminalText.escape(bytes: [0x41, 0x9B, 0x32, 0x4A]) == "A\u{FFFD}2J")
        #expect(TerminalText.escape(bytes: [0x41, 0xC0, 0x9B, 0x5B]) == "A\u{FFFD}\u{FFFD}[")
        #expect(TerminalText.escape(bytes: [0x41, 0xC2, 0x9B, 0x32, 0x4A]) == #"A\u{009B}2J"#)
        #expect(TerminalText.escape(bytes: [0xE2, 0x80, 0xAE]) == #"\u{202E}"#)
    }

    /// Error messages quote servers (reason phrases, fields, bodies): every `SluiceError` keeps
    /// its message escaped, and a body snippet escapes what `String(reflecting:)` lets through.
    @Test func errorMessagesAndBodySnippetsAreEscaped() {
        let error = SluiceError(.unacceptableStatus, "the server answered 500 Oops\u{9B}2J\u{202E}\nsecond line")
        #expect(error.message == "the server answered 500 Oops\\u{009B}2J\\u{202E}\nsecond line")
        #expect(!"\(error)".unicodeScalars.contains { TerminalText.isUnsafe($0, keepingLineBreaks: true) })
        let snippet = Redaction.default.snippet(of: Data("x\u{9B}[2J\u{202E}y".utf8), contentType: "text/plain")
        #expect(snippet == #""x\u{009B}[2J\u{202E}y""#)
    }

    /// Issue 41, item 6: every scalar that breaks a line is escaped where line breaks are not
    /// kept: LF, CR, VT, FF, NEL and the line and paragraph separators U+2028 and U+2029 (a
    /// swift-log handler or a reader that breaks on them would show one log line as two).
    @Test func everyLineBreakingScalarIsEscaped() {
        for scalar: Unicode.Scalar in ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"] {
            #expect(TerminalText.isUnsafe(scalar), "U+\(String(scalar.value, radix: 16))")
            #expect(!TerminalText.escape("a\(scalar)b").unicodeScalars.contains(scalar))
        }
        #expect(TerminalText.escape("a\u{2028}b\u{2029}c") == #"a\u{2028}b\u{2029}c"#)
        #expect(TerminalText.escape("a\u{2028}b", style: .json) == #"a\u2028b"#)
        #expect(TerminalText.escape(bytes: [0x61, 0xE2, 0x80, 0xA8, 0x62]) == #"a\u{2028}b"#)
        // Kept line breaks keep LF and tab only.
        #expect(TerminalText.escape("a\nb\u{2028}c", keepingLineBreaks: true) == "a\nb\\u{2028}c")
    }
}
