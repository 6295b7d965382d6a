import Foundation
import Testing

@testable import SluiceLogging

/// The byte-level writers behind every log line and JSON record: numbers, sizes, times, escaping.
@Suite struct LineBufferTests {
    private func written(_ write: (inout LineBuffer) -> Void) -> String {
        var buffer = LineBuffer()
        write(&buffer)
        return buffer.string
    }

    @Test(arguments: [
        (Int64(0), "0"), (7, "7"), (-42, "-42"), (1_000_000, "1000000"),
        (.max, "9223372036854775807"), (.min, "-9223372036854775808"),
    ])
    func integers(value: Int64, text: String) {
        #expect(written { $0.append(integer: value) } == text)
    }

    @Test(arguments: [
        (35.0, 3, "35"), (0.4, 1, "0.4"), (1.25, 2, "1.25"), (1.05, 3, "1.05"), (0.001, 3, "0.001"),
        (0.0004, 3, "0"), (-0.04, 1, "0"), (-2.5, 1, "-2.5"), (9.96, 1, "10"), (.nan, 2, "0"), (.infinity, 1, "0"),
    ])
    func decimals(value: Double, places: Int, text: String) {
        #expect(written { $0.append(value, places: places) } == text)
    }

    @Test(arguments: [
        (Int64(0), "0 B"), (1_023, "1023 B"), (1_024, "1 KB"), (1_536, "1.5 KB"), (1_048_575, "1024 KB"),
        (1_048_576, "1 MB"), (5_505_024, "5.3 MB"),
    ])
    func sizes(bytes: Int64, text: String) {
        #expect(written { $0.append(size: bytes) } == text)
        #expect(LogRecord.size(bytes) == text)
    }

    @Test(arguments: [(0.44, "0.4 ms"), (0.04, "0 ms"), (9.96, "10 ms"), (12.5, "13 ms"), (1_234.4, "1234 ms")])
    func times(milliseconds: Double, text: String) {
        #expect(written { $0.append(milliseconds: milliseconds) } == text)
    }

    @Test func nonASCIIPassesThroughWhole() {
        let text = written { line in
            line.append(contentsOf: "café")
            line.append(" → ")
            line.append(contentsOf: "naïve 日本"[...])
        }
        #expect(text == "café → naïve 日本")
    }

    @Test func growsPastItsFirstAllocationWithoutLosingBytes() {
        let piece = String(repeating: "abcdefghij", count: 100)  // 1,000 bytes
        var expected = ""
        var buffer = LineBuffer(capacity: 16)
        for round in 0..<20 {
            buffer.append(contentsOf: piece)
            buffer.append(integer: Int64(round))
            buffer.append(UInt8(ascii: ";"))
            expected += piece + "\(round);"
        }
        #expect(buffer.count == expected.utf8.count)
        #expect(buffer.string == expected)
    }

    @Test func paintWrapsOnlyWhenAsked() {
        #expect(written { $0.paint("32", false) { $0.append("ok") } } == "ok")
        #expect(written { $0.paint("32", true) { $0.append("ok") } } == "\u{1B}[32mok\u{1B}[0m")
    }

    @Test func jsonEscapesQuotesBackslashesAndControlBytes() throws {
        let nasty = "say \"hi\"\\ \n\r\t\u{01}\u{1F} é ✓"
        var json = JSONLineWriter()
        json.number("count", -3)
        json.decimal("ms", 0.125, places: 3)
        json.object("error") { $0.string("message", nasty) }
        json.array("list", [1, 2]) { inner, value in inner.number("n", value) }
        json.pairs("pairs", [("a\"", "b\n"), ("c", "")])
        json.string("plain", "x")
        let line = json.finish()
        #expect(
            line
                == #"{"count":-3,"ms":0.125,"error":{"message":"say \"hi\"\\ \n\r\t\u0001\u001f é ✓"},"list":[{"n":1},{"n":2}],"pairs":[["a\"","b\n"],["c",""]],"plain":"x"}"#
        )
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect((object["error"] as? [String: String])?["message"] == nasty)
        #expect(object["pairs"] as? [[String]] == [["a\"", "b\n"], ["c", ""]])
    }
}
