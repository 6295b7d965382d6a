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

    @Test(
        arguments: [
            // The xml fuzz target's crash: swift-corelibs-foundation force-unwraps names as UTF-8.
            ("prefixed element name", [UInt8](#"<s:Envelope xmlns:s="urn:x"><s:"#.utf8) + [0xFC, 0xFC] + Array("Body/></s:Envelope>".utf8), 31),
            ("element name", Array("<r><a".utf8) + [0xC3] + Array("/></r>".utf8), 5),
            ("attribute name", Array("<r a".utf8) + [0xFF] + Array("=\"1\"/>".utf8), 4),
            ("comment", Array("<r><!-- ".utf8) + [0xE2, 0x82] + Array(" --></r>".utf8), 8),
            ("text after a BOM", [0xEF, 0xBB, 0xBF] + Array("<r>".utf8) + [0x80] + Array("</r>".utf8), 6),
        ] as [(String, [UInt8], Int)])
    func invalidUTF8IsADecodingErrorNotACrash(where: String, bytes: [UInt8], offset: Int) {
        expectDecodingFailure("not valid XML: byte \(offset) is not UTF-8, the document's encoding", Data(bytes))
    }

    @Test func declaredOneByteEncodingsAndUTF16AreRead() throws {
        let latin1 = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><r>caf"#.utf8) + Data([0xE9]) + Data("</r>".utf8)
        #expect(try XMLTree(parsing: latin1).text == "café")
        let cp1252 = Data("<?xml version='1.0' encoding='windows-1252'?><r>".utf8) + Data([0x80]) + Data("</r>".utf8)
        #expect(try XMLTree(parsing: cp1252).text == "€")
        var utf16 = Data([0xFF, 0xFE])
        utf16.append("<?xml version=\"1.0\" encoding=\"UTF-16\"?><r a=\"ü\">ひらがな</r>".data(using: .utf16LittleEndian)!)
        let tree = try XMLTree(parsing: utf16)
        #expect(tree.text == "ひらがな" && tree.attributes["a"] == "ü")
        expectDecodingFailure(
            #"not valid XML: the encoding "EBCDIC-US" is not supported (UTF-8, UTF-16, ISO-8859-1, US-ASCII and windows-1252 are)"#,
            Data(#"<?xml version="1.0" encoding="EBCDIC-US"?><r/>"#.utf8))
        expectDecodingFailure(
            "not valid XML: the bytes are not valid US-ASCII, the document's encoding",
            Data(#"<?xml version="1.0" encoding="US-ASCII"?><r>"#.utf8) + Data([0xE9]) + Data("</r>".utf8))
    }

    func expectDecodingFailure(_ message: String, _ bytes: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            try XMLTree(parsing: bytes)
        } throws: { error in
            guard let error = error as? SluiceError else { return false }
            return error.code == .decodingFailed && error.message == message
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
        // Refused outright: the DOCTYPE has an internal subset.
        expectDecodingFailure(Self.internalSubsetRefused(at: 22), Data(xml.utf8))
    }

    static func internalSubsetRefused(at offset: Int) -> String {
        "not valid XML: the DOCTYPE at byte \(offset) has an internal subset, which is refused (its declarations can expand entities and crash FoundationXML's parser)"
    }

    @Test(arguments: [
        // Each of these crashed swift-corelibs-foundation's XMLParser (a null pointer unwrapped).
        #"<!DOCTYPE r [<!ATTLIST r a CDATA #IMPLIED>]><r/>"#,
        #"<!DOCTYPE r [<!NOTATION n SYSTEM "x">]><r/>"#,
        #"<!DOCTYPE r [<!ENTITY e SYSTEM "x" NDATA n>]><r/>"#,
        #"<!DOCTYPE r [<!ENTITY e "&#60;?pi?>">]><r>&e;</r>"#,
        #"<!DOCTYPE r SYSTEM "a]b" [<!ELEMENT r ANY>]><r/>"#,
    ])
    func internalDTDSubsetsAreRefused(_ xml: String) {
        expectDecodingFailure(Self.internalSubsetRefused(at: 0), Data(xml.utf8))
    }

    @Test func processingInstructionsWithoutDataAreRead() throws {
        // <?pi?> crashed XMLParser (its data is a null pointer); comments and CDATA keep their text.
        let tree = try XMLTree(parsing: Data(#"<?xml version="1.0"?><?xml-stylesheet?><r><?pi?><!-- <?c?> --><a><![CDATA[<?x?>]]></a><?t data?></r>"#.utf8))
        #expect(tree.name == "r")
        #expect(tree["a"]?.text == "<?x?>")
        let doctype = try XMLTree(
            parsing: Data(#"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd"><plist><dict/></plist>"#.utf8)
        )
        #expect(doctype.name == "plist" && doctype.children.map(\.name) == ["dict"])
    }
}
