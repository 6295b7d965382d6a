import Foundation
import Sluice
import Testing

@Suite("RequestOptions")
struct RequestOptionsTests {
    let url = URL(string: "https://example.com")!

    @Test func typedKeysRoundTrip() {
        var request = HTTPRequest(url: url)
        #expect(request.testTags == [])
        #expect(!request.options.contains(TagKey.self))
        request.testTags = ["screen-a", "feed"]
        #expect(request.testTags == ["screen-a", "feed"])
        #expect(request.options.contains(TagKey.self))
        request.options[LabelKey.self] = "x"
        #expect(request.options[LabelKey.self] == "x")
        #expect(request.options.count == 2)
    }

    @Test func keysWithTheSameValueTypeAreDistinct() {
        var options = RequestOptions()
        options[LabelKey.self] = "mine"
        #expect(options[OtherLabelKey.self] == "other")
        #expect(options[LabelKey.self] == "mine")
    }

    @Test func settingAgainReplacesAndKeysKeepTheirFirstOrder() {
        var options = RequestOptions()
        options[LabelKey.self] = "first"
        options[OtherLabelKey.self] = "second"
        options[TagKey.self] = ["t"]
        options[LabelKey.self] = "again"
        #expect(options.count == 3)
        #expect(options[LabelKey.self] == "again")
        #expect(
            options.keys.map { ObjectIdentifier($0) } == [ObjectIdentifier(LabelKey.self), ObjectIdentifier(OtherLabelKey.self), ObjectIdentifier(TagKey.self)])
        options.remove(OtherLabelKey.self)
        #expect(options.keys.map { ObjectIdentifier($0) } == [ObjectIdentifier(LabelKey.self), ObjectIdentifier(TagKey.self)])
        #expect(options[OtherLabelKey.self] == "other")
    }

    @Test func removeRestoresDefault() {
        var options = RequestOptions()
        options[LabelKey.self] = "set"
        options.remove(LabelKey.self)
        #expect(options[LabelKey.self] == "none")
        #expect(!options.contains(LabelKey.self))
    }

    @Test func copiesAreIndependent() throws {
        var a = HTTPRequest(url: url)
        a.testTags = ["a"]
        var b = a
        b.testTags = ["b"]
        try b.headers.set(name: "X", value: "1")
        #expect(a.testTags == ["a"])
        #expect(b.testTags == ["b"])
        #expect(a.headers["X"] == nil)
        #expect(b.headers["X"] == "1")
    }
}
