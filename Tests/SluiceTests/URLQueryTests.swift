import Foundation
import Sluice
import Testing

@Suite("URLQuery")
struct URLQueryTests {
    @Test func appendsBeforeTheFragmentWithTheRightSeparator() throws {
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p")!).absoluteString == "https://x.example/p?a=1")
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p?q=0#top")!).absoluteString == "https://x.example/p?q=0&a=1#top")
        #expect(try URLQuery.appending("a=1", to: URL(string: "https://x.example/p?")!).absoluteString == "https://x.example/p?a=1")
        #expect(try URLQuery.appending("", to: URL(string: "https://x.example/p")!).absoluteString == "https://x.example/p")
    }
}
