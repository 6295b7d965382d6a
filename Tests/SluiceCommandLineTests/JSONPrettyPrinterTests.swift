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

    @Test func coloursPaintKeysStringsNumbersAndLiterals() {
        let painted = JSONPrettyPrinter(colours: true).format(Data(#"{"k":"v","n":2,"b":false}"#.utf8))
        #expect(
            painted == "{\n    \u{1B}[34m\"k\"\u{1B}[0m: \u{1B}[33m\"v\"\u{1B}[0m,\n    \u{1B}[34m\"n\"\u{1B}[0m: \u{1B}[36m2\u{1B}[0m,\n"
                + "    \u{1B}[34m\"b\"\u{1B}[0m: \u{1B}[35mfalse\u{1B}[0m\n}")
    }
}
