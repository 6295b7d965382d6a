import Foundation
import Sluice
import Testing

@Suite("URLQuery")
struct URLQueryTests {
    @Test func encodesAllButUnreserved() {
        #expect(URLQuery.encode("café au/lait&=+~") == "caf%C3%A9%20au%2Flait%26%3D%2B~")
        #expect(URLQuery.encode("a/b c", keepingSlash: true) == "a/b%20c")
    }

    @Test func appendsBeforeTheFragmentWithTheRightSeparator() throws {
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p")!).absoluteString == "https://x.example/p?a=1")
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p?q=0#top")!).absoluteString == "https://x.example/p?q=0&a=1#top")
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p?")!).absoluteString == "https://x.example/p?a=1")
        #expect(try URLQuery.appending("", to: URL(string: "https://x.example/p")!).absoluteString == "https://x.example/p")
    }
}
