import Foundation
import Sluice
import SluiceTesting
import SluiceXML
import Testing

@Suite struct XMLTreeTests {
    @Test func aFeedBecomesATree() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
              <channel>
                <title>News &amp; notes</title>
                <atom:link href="https://example.com/feed" rel="self"/>
                <item><title>First</title><description><![CDATA[<b>bold</b> & more]]></description></item>
                <item><title>Second</title></item>
              </channel>
            </rss>
            """
        let tree = try XMLTree(parsing: Data(xml.utf8))
        #expect(tree.name == "rss")
        #expect(tree.attributes == ["version": "2.0", "xmlns:atom": "http://www.w3.org/2005/Atom"])
        let channel = try #require(tree["channel"])
        #expect(channel["title"]?.text == "News & notes")
        #expect(channel["atom:link"]?.attributes["href"] == "https://example.com/feed")
        #expect(channel.children(named: "item").compactMap { $0["title"]?.text } == ["First", "Second"])
        #expect(channel.children(named: "item").first?["description"]?.text == "<b>bold</b> & more")
        #expect(channel.children.map(\.name) == ["title", "atom:link", "item", "item"])
    }

    @Test func brokenXMLSaysWhere() {
        #expect {
            try XMLTree(parsing: Data("<a>\n  <b>text</a>".utf8))
        } throws: { error in
            guard let error = error as? SluiceError else { return false }
            return error.code == .decodingFailed && error.message.hasPrefix("not valid XML at line 2, column ")
        }
        #expect {
            try XMLTree(parsing: Data())
        } throws: { error in
            (error as? SluiceError)?.code == .decodingFailed
        }
    }

    @Test func nestingPastTheLimitIsRefused() {
        let depth = XMLTree.maximumDepth + 1
        let xml = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect {
            try XMLTree(parsing: Data(xml.utf8))
        } throws: { error in
            (error as? SluiceError)?.message.hasSuffix("elements nest deeper than \(XMLTree.maximumDepth) levels") == true
        }
    }

    @Test func externalEntitiesAreNotLoaded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-xxe-\(UUID().uuidString)")
        try Data("TOP-SECRET".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY x SYSTEM "\(secret.absoluteString)">]>
            <r>&x;</r>
            """
        let text = (try? XMLTree(parsing: Data(xml.utf8)))?.text ?? ""
        #expect(!text.contains("TOP-SECRET"))
    }
}

@Suite struct XMLResponseDecoderTests {
    struct Feed: Endpoint {
        typealias Response = XMLTree
        var path: String { "https://example.com/feed.xml" }
        func decode(_ response: HTTPResponse, with client: Client) throws(SluiceError) -> XMLTree {
            try XMLResponseDecoder().decode(response)
        }
    }

    @Test func anEndpointDecodesXML() async throws {
        let transport = MockTransport(replies: [.status(.ok, headers: ["Content-Type": "text/xml"], body: "<feed><entry id=\"1\"/></feed>")])
        let tree = try await Client(transport: transport).send(Feed())
        #expect(tree["entry"]?.attributes["id"] == "1")
    }

    @Test func aBadBodyIsADecodingErrorWithTheBody() async throws {
        let transport = MockTransport(replies: [.status(.ok, headers: ["Content-Type": "text/xml"], body: "<feed><entry></feed>")])
        do {
            _ = try await Client(transport: transport).send(Feed())
            Issue.record("decoded broken XML")
        } catch let error as SluiceError {
            #expect(error.code == .decodingFailed)
            #expect(error.stage == .client)
            #expect(error.message.hasPrefix("not valid XML at line 1, column "))
            #expect(error.message.hasSuffix(#"; body: "<feed><entry></feed>""#))
            #expect(error.response?.status == .ok)
        }
    }
}
