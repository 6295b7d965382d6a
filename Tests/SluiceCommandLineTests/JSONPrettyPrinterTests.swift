import Foundation
import Testing

@testable import SluiceCommandLine

@Suite("JSON laid out from its tokens")
struct JSONPrettyPrinterTests {
    let plain = JSONPrettyPrinter(colours: false)

    @Test func numbersEscapesAndKeyOrderAreKeptExactly() throws {
        let json = #"{"zeta":1.10,"alpha":[1E+2,-0.0,12345678901234567890],"s":"caf\u00e9 \/ \"q\"","n":null,"t":true,"e":{},"a":[]}"#
        let expected = """
            {
                "zeta": 1.10,
                "alpha": [
                    1E+2,
                    -0.0,
                    12345678901234567890
                ],
                "s": "caf\\u00e9 \\/ \\"q\\"",
                "n": null,
                "t": true,
                "e": {},
                "a": []
            }
            """
        #expect(plain.format(Data(json.utf8)) == expected)
    }

    @Test func whitespaceTheServerSentIsReplacedAndFragmentsPrint() {
        #expect(plain.format(Data("[ 1 ,\n\t{ \"k\" : \"v\" } ]".utf8)) == "[\n    1,\n    {\n        \"k\": \"v\"\n    }\n]")
        #expect(plain.format(Data(#""just a string""#.utf8)) == #""just a string""#)
        #expect(plain.format(Data("3.14159".utf8)) == "3.14159")
    }

    @Test func invalidJSONIsNotFormatted() {
        for text in [#"{"a":1"#, "{'a':1}", "[1,]", "", "NaN"] { #expect(plain.format(Data(text.utf8)) == nil, "\(text)") }
    }

    /// Issue 41, item 9: UTF-16 JSON whose characters' bytes spell terminal sequences (U+5B1B is
    /// `ESC [` in UTF-16LE, U+1B5B in UTF-16BE) is decoded before it is laid out: what is shown is
    /// those characters, and no byte of it is a control.
    @Test(arguments: [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32BigEndian, .utf32])
    func jsonInUTF16OrUTF32IsDecodedBeforeItIsShown(_ encoding: String.Encoding) throws {
        let text = "{\"k\":\"\u{5B1B}\u{3133}\u{1B5B}\u{3331}x\"}"
        let encoded = try #require(text.data(using: encoding))
        let shown = try #require(plain.format(encoded))
        #expect(shown == "{\n    \"k\": \"\u{5B1B}\u{3133}\u{1B5B}\u{3331}x\"\n}")
        #expect(!shown.utf8.contains { $0 < 0x20 && $0 != 0x0A })
    }

    /// A raw control inside a string (which JSON forbids, and a lenient parser might let by) is
    /// escaped, never written.
    @Test func aRawControlInAStringIsNeverWritten() {
        let shown = plain.format(Data([0x22, 0x61, 0x1B, 0x5B, 0x32, 0x4A, 0x22]))
        #expect(shown == nil || !(shown ?? "").utf8.contains(0x1B))
    }

    /// UTF-16 that does not decode (a lone surrogate) is not JSON to lay out.
    @Test func undecodableUTF16IsNotFormatted() {
        #expect(plain.format(Data([0x22, 0x00, 0x00, 0xD8, 0x22, 0x00])) == nil)
    }

    @Test func coloursPaintKeysStringsNumbersAndLiterals() {
        let painted = JSONPrettyPrinter(colours: true).format(Data(#"{"k":"v","n":2,"b":false}"#.utf8))
        #expect(
            painted == "{\n    \u{1B}[34m\"k\"\u{1B}[0m: \u{1B}[33m\"v\"\u{1B}[0m,\n    \u{1B}[34m\"n\"\u{1B}[0m: \u{1B}[36m2\u{1B}[0m,\n"
                + "    \u{1B}[34m\"b\"\u{1B}[0m: \u{1B}[35mfalse\u{1B}[0m\n}")
    }
}
