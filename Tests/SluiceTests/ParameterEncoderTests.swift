import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("ParameterEncoder")
struct ParameterEncoderTests {
    let parameters: [(String, ParameterValue)] = [
        ("q", "café"), ("page", 2), ("ratio", 0.25), ("whole", 3.0), ("draft", true), ("tags", ["a", "b c"]),
        ("filter", ["kind": "book", "year": 2024]),
    ]

    @Test func typedValuesAndTheThreeArrayStyles() {
        #expect(
            ParameterEncoder().query(parameters)
                == "q=caf%C3%A9&page=2&ratio=0.25&whole=3&draft=true&tags=a&tags=b%20c&filter%5Bkind%5D=book&filter%5Byear%5D=2024")
        #expect(ParameterEncoder(arrayStyle: .brackets).query([("tags", ["a", "b"])]) == "tags%5B%5D=a&tags%5B%5D=b")
        #expect(ParameterEncoder(arrayStyle: .commaSeparated).query([("tags", ["a", "b", 3])]) == "tags=a,b,3")
        #expect(ParameterEncoder().pairs([("a", ["b": ["c": [1, 2]]])]).map { "\($0.name)=\($0.value)" } == ["a[b][c]=1", "a[b][c]=2"])
    }

    @Test func sortedKeysGiveTheSameQueryWhateverTheOrder() {
        let sorted = ParameterEncoder(sortsKeys: true)
        #expect(sorted.query([("b", 1), ("a", ["z": 1, "y": 2])]) == sorted.query([("a", ["y": 2, "z": 1]), ("b", 1)]))
        #expect(sorted.query([("b", 1), ("a", 2)]) == "a=2&b=1")
    }
}
