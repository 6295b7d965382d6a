import Foundation
import Sluice
import SluiceXML

extension FuzzTarget {
    /// `XMLTree(parsing:)`: a document becomes a tree or `.decodingFailed`, without entity
    /// expansion blowing up (libxml2 under FoundationXML).
    static let xml = FuzzTarget(name: "xml", summary: "the XML response decoder") { data in
        do throws(SluiceError) {
            _ = try XMLTree(parsing: data)
        } catch {
            require(error.code == .decodingFailed, "parsing failed with \(error.code): \(error)")
        }
    }
}
