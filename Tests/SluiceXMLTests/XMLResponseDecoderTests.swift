import Foundation
import Sluice
import SluiceTesting
import SluiceXML
import Testing

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

    @Test(arguments: ["application/atom+xml", "application/rss+xml; charset=utf-8", "application/xml"])
    func xmlMediaTypesAndPlusXMLArePassedByTheDefaultTypes(contentType: String) async throws {
        let transport = MockTransport(replies: [
            .status(.ok, headers: ["Content-Type": contentType], body: "<feed><title>News</title></feed>")
        ])
        let feed = try await Client(transport: transport).send(Feed())
        #expect(feed["title"]?.text == "News")
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
