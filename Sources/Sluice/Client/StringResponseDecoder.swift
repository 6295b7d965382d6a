import Foundation

/// The body as text, in the charset `Content-Type` names (`text/plain; charset=iso-8859-1`), or
/// in ``defaultEncoding`` (UTF-8) when it names none.
///
/// ```swift
/// import Sluice
///
/// let page = try await client.send(request, decoder: StringResponseDecoder())
/// ```
///
/// Bytes that are not valid in the charset are an error, never silently replaced.
public struct StringResponseDecoder: ResponseDecoder {
    /// For bodies whose `Content-Type` names no charset.
    public let defaultEncoding: String.Encoding

    /// Decodes text in its declared charset, or `defaultEncoding` when it declares none. Error
    /// messages quote the body under the privacy policy of the request it answered.
    public init(defaultEncoding: String.Encoding = .utf8) {
        self.defaultEncoding = defaultEncoding
    }

    /// - Throws: `.decodingFailed` naming an unknown charset, or the charset the bytes are not valid in.
    public func decode(_ response: HTTPResponse) throws(SluiceError) -> String {
        let data = try DataResponseDecoder().decode(response)
        let contentType = response.headers["Content-Type"]
        let charset = contentType.flatMap(Self.charset(in:))
        let encoding: String.Encoding
        if let charset {
            guard let named = Self.encoding(named: charset) else {
                throw SluiceError(
                    .decodingFailed, "the response's charset \(String(reflecting: charset)) is not one Sluice can decode",
                    stage: .client, response: response)
            }
            encoding = named
        } else {
            encoding = defaultEncoding
        }
        guard let text = String(data: data, encoding: encoding) else {
            throw SluiceError(
                .decodingFailed,
                "the response body is not valid \(charset ?? "\(encoding)") text; body: \(Redaction.default.snippet(of: data, in: response))",
                stage: .client, response: response
            )
        }
        return text
    }

    /// The `charset` parameter of a media type, unquoted and lowercased.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingOptionalWhitespace() }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        }
        return nil
    }

    /// The encodings Foundation on Linux decodes, by their IANA names and common aliases.
    static func encoding(named name: String) -> String.Encoding? {
        switch name {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": .isoLatin1
        case "iso-8859-2", "latin2": .isoLatin2
        case "windows-1252", "cp1252": .windowsCP1252
        case "windows-1251", "cp1251": .windowsCP1251
        case "windows-1250", "cp1250": .windowsCP1250
        case "utf-16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32": .utf32
        case "utf-32le": .utf32LittleEndian
        case "utf-32be": .utf32BigEndian
        case "shift_jis", "shift-jis", "sjis": .shiftJIS
        case "euc-jp": .japaneseEUC
        default: nil
        }
    }
}
