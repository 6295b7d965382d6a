extension Substring {
    /// The text without leading and trailing spaces and tabs: RFC 9110's optional whitespace
    /// (OWS) around a field value or a member of a field's list. Other Unicode spaces stay, as
    /// they are not OWS. A byte scan, where Foundation's `trimmingCharacters(in: .whitespaces)`
    /// goes through `NSString`: it is on the path of every response. `package`: for the modules
    /// that read field values.
    ///
    /// ```swift
    /// "gzip, br".split(separator: ",").map { $0.trimmingOptionalWhitespace() }   // ["gzip", "br"]
    /// ```
    package func trimmingOptionalWhitespace() -> String {
        var text = self
        return text.withUTF8 { String(decoding: HTTPFields.trimmed($0), as: UTF8.self) }
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs (RFC 9110's OWS); see
    /// `Substring.trimmingOptionalWhitespace()`. A value with nothing to trim is returned as it
    /// is, without a copy (every field a request sets goes through here).
    ///
    /// ```swift
    /// " gzip\t".trimmingOptionalWhitespace()   // "gzip"
    /// ```
    package func trimmingOptionalWhitespace() -> String {
        var value = self
        let shortened = value.withUTF8 { bytes -> String? in
            let kept = HTTPFields.trimmed(bytes)
            return kept.count == bytes.count ? nil : String(decoding: kept, as: UTF8.self)
        }
        return shortened ?? value
    }
}
