import Foundation
import Sluice

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XML element as a plain value: its name, attributes, child elements and text. Small on
/// purpose: what XML API responses need, without a DOM.
///
/// ```swift
/// import Foundation
/// import SluiceXML
///
/// let tree = try XMLTree(parsing: Data("<rss><channel><title>News</title></channel></rss>".utf8))
/// tree["channel"]?["title"]?.text          // "News"
/// tree.children(named: "channel").count    // 1
/// ```
///
/// Names are kept as written (`atom:link`), namespaces are not resolved, external entities are
/// never loaded, and nesting deeper than ``maximumDepth`` is refused.
public struct XMLTree: Sendable, Hashable {
    /// The element's name.
    public var name: String
    /// The element's attributes.
    public var attributes: [String: String]
    /// The child elements, in order.
    public var children: [XMLTree]
    /// The character data directly inside this element (CDATA included), joined, with the
    /// whitespace around it trimmed.
    public var text: String

    /// How deep elements may nest before parsing stops with an error.
    public static let maximumDepth = 512

    /// An element with these parts.
    public init(name: String, attributes: [String: String] = [:], children: [XMLTree] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The root element of `data`.
    ///
    /// - Throws: `.decodingFailed` naming the line and column where the XML goes wrong, or the byte
    ///   that is not in the document's encoding (UTF-8 unless it declares ISO-8859-1, US-ASCII,
    ///   windows-1252 or UTF-16).
    public init(parsing data: Data) throws(SluiceError) {
        let builder = TreeBuilder()
        let parser = XMLParser(data: try XMLSource.utf8(data))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let problem = builder.problem {
            throw SluiceError(.decodingFailed, "not valid XML at line \(parser.lineNumber), column \(parser.columnNumber): \(problem)")
        }
        guard parsed, let root = builder.root else {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "no root element"
            throw SluiceError(
                .decodingFailed, "not valid XML at line \(parser.lineNumber), column \(parser.columnNumber): \(reason)",
                underlying: parser.parserError)
        }
        self = root
    }

    /// The first child element named `name`.
    public subscript(name: String) -> XMLTree? {
        children.first { $0.name == name }
    }

    /// Every child element named `name`, in document order.
    public func children(named name: String) -> [XMLTree] {
        children.filter { $0.name == name }
    }
}

/// Collects the tree as the parser reports it. Used by one parse on one thread, then dropped.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: XMLTree?
    var problem: String?
    private var open: [(element: XMLTree, text: String)] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard open.count < XMLTree.maximumDepth else {
            problem = "elements nest deeper than \(XMLTree.maximumDepth) levels"
            parser.abortParsing()
            return
        }
        open.append((XMLTree(name: elementName, attributes: attributeDict), ""))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !open.isEmpty else { return }
        open[open.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !open.isEmpty else { return }
        open[open.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let (closed, text) = open.popLast() else { return }
        var element = closed
        element.text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if open.isEmpty {
            root = element
        } else {
            open[open.count - 1].element.children.append(element)
        }
    }
}
