import Foundation
import Sluice

/// A document's bytes made safe for `XMLParser`: valid UTF-8 it cannot crash on, or refused.
///
/// swift-corelibs-foundation's `XMLParser` (Swift 6.3) force-unwraps what libxml2 hands its
/// callbacks, and libxml2 hands it invalid UTF-8 (in recovery mode) and null pointers (a
/// processing instruction without data, an `#IMPLIED` attribute declaration, a notation without a
/// public ID). Each of those crashed the process; the `xml` fuzz target found them. So:
/// - UTF-8 (declared, implied, or with a byte-order mark) must be valid UTF-8;
/// - UTF-16 (with a byte-order mark, or `<?` in UTF-16), ISO-8859-1, US-ASCII and windows-1252 are
///   decoded by Foundation and handed on as UTF-8, without their XML declaration (whose
///   `encoding` would no longer be true);
/// - any other declared encoding is refused;
/// - a `DOCTYPE` with an internal subset (`<!DOCTYPE r [ … ]>`) is refused: its declarations
///   reach the crashing callbacks, and its entities are the way to entity-expansion attacks
///   (defusedxml refuses entity declarations for the same reason). A `DOCTYPE` without one, as
///   in XHTML or property lists, is fine;
/// - a processing instruction with no data (`<?target?>`) gets a space before its `?>`, so libxml2
///   reports empty data instead of a null pointer.
///
/// ```swift
/// let bytes = try XMLSource.utf8(Data("<a>\u{e9}</a>".utf8))    // unchanged: already UTF-8
/// ```
enum XMLSource {
    static func utf8(_ data: Data) throws(SluiceError) -> Data {
        let head = [UInt8](data.prefix(4))
        if head.starts(with: [0xFE, 0xFF]) || head == [0x00, 0x3C, 0x00, 0x3F] {
            return try transcoded(data, .utf16BigEndian, name: "UTF-16", skipping: head[0] == 0xFE ? 2 : 0)
        }
        if head.starts(with: [0xFF, 0xFE]) || head == [0x3C, 0x00, 0x3F, 0x00] {
            guard !head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) else { throw unsupported("UTF-32") }
            return try transcoded(data, .utf16LittleEndian, name: "UTF-16", skipping: head[0] == 0xFF ? 2 : 0)
        }
        if head == [0x00, 0x00, 0x00, 0x3C] || head == [0x3C, 0x00, 0x00, 0x00] || head == [0x00, 0x00, 0xFE, 0xFF] {
            throw unsupported("UTF-32")
        }
        let hasBOM = head.starts(with: [0xEF, 0xBB, 0xBF])
        if !hasBOM, let declared = declaredEncoding(data) {
            switch declared.lowercased() {
            case "utf-8", "utf8": break
            case "iso-8859-1", "latin1", "iso_8859-1", "l1": return try transcoded(data, .isoLatin1, name: declared, skipping: 0)
            case "us-ascii", "ascii": return try transcoded(data, .ascii, name: declared, skipping: 0)
            case "windows-1252", "cp1252": return try transcoded(data, .windowsCP1252, name: declared, skipping: 0)
            case "utf-16": break  // declared UTF-16 but written in one-byte units (no BOM, no 00 bytes): checked as UTF-8
            default: throw unsupported(declared)
            }
        }
        if let offset = firstInvalidUTF8(data) {
            throw SluiceError(.decodingFailed, "not valid XML: byte \(offset) is not UTF-8, the document's encoding")
        }
        return try defused(data)
    }

    /// `data` with a space before the `?>` of every processing instruction that has no data, or
    /// `.decodingFailed` for an internal DTD subset. Comments and CDATA sections are skipped.
    static func defused(_ data: Data) throws(SluiceError) -> Data {
        let bytes = [UInt8](data)
        var insertions: [Int] = []
        var index = 0
        func starts(_ prefix: StaticString, at offset: Int) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard offset + count <= bytes.count else { return false }
            return (0..<count).allSatisfy { bytes[offset + $0] == prefix.utf8Start[$0] }
        }
        func find(_ end: StaticString, from offset: Int) -> Int? {
            var at = offset
            while at < bytes.count {
                if starts(end, at: at) { return at }
                at += 1
            }
            return nil
        }
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            if starts("<!--", at: open) {
                guard let end = find("-->", from: open + 4) else { break }
                index = end + 3
            } else if starts("<![CDATA[", at: open) {
                guard let end = find("]]>", from: open + 9) else { break }
                index = end + 3
            } else if starts("<!DOCTYPE", at: open) {
                var at = open + 9, quote: UInt8?
                while at < bytes.count {
                    let byte = bytes[at]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: "[") {
                        throw SluiceError(
                            .decodingFailed,
                            "not valid XML: the DOCTYPE at byte \(open) has an internal subset, which is refused (its declarations can expand entities and crash FoundationXML's parser)"
                        )
                    } else if byte == UInt8(ascii: ">") {
                        break
                    }
                    at += 1
                }
                index = at + 1
            } else if starts("<?", at: open) {
                guard let end = find("?>", from: open + 2) else { break }
                if end > open + 2, !isWhitespace(bytes[end - 1]) { insertions.append(end) }
                index = end + 2
            } else {
                index = open + 1
            }
            if index >= bytes.count { break }
        }
        guard !insertions.isEmpty else { return data }
        var result = Data(capacity: bytes.count + insertions.count)
        var copied = 0
        for at in insertions {
            result.append(contentsOf: bytes[copied..<at])
            result.append(UInt8(ascii: " "))
            copied = at
        }
        result.append(contentsOf: bytes[copied...])
        return result
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The `encoding` of a leading `<?xml …?>` declaration, if it names one.
    static func declaredEncoding(_ data: Data) -> String? {
        let declaration = [UInt8](data.prefix(256))
        guard declaration.starts(with: Array("<?xml".utf8)),
            let end = declaration.indices.first(where: {
                declaration[$0] == UInt8(ascii: "?") && $0 + 1 < declaration.count && declaration[$0 + 1] == UInt8(ascii: ">")
            })
        else { return nil }
        let text = String(decoding: declaration[..<end], as: UTF8.self)
        guard let key = text.range(of: "encoding") else { return nil }
        let rest = text[key.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard rest.first == "=" else { return nil }
        let value = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let quote = value.first, quote == "\"" || quote == "'" else { return nil }
        let name = value.dropFirst().prefix { $0 != quote }
        return name.isEmpty ? nil : String(name)
    }

    private static func transcoded(_ data: Data, _ encoding: String.Encoding, name: String, skipping bom: Int) throws(SluiceError) -> Data {
        guard var text = String(data: data.dropFirst(bom), encoding: encoding) else {
            throw SluiceError(.decodingFailed, "not valid XML: the bytes are not valid \(name), the document's encoding")
        }
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") { text.removeSubrange(..<end.upperBound) }
        return try defused(Data(text.utf8))
    }

    private static func unsupported(_ name: String) -> SluiceError {
        SluiceError(
            .decodingFailed,
            "not valid XML: the encoding \(String(reflecting: name)) is not supported (UTF-8, UTF-16, ISO-8859-1, US-ASCII and windows-1252 are)")
    }

    /// The offset of the first byte that is not part of valid UTF-8, or nil.
    private static func firstInvalidUTF8(_ data: Data) -> Int? {
        if data.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) != nil { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
