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
        var start = utf8.startIndex, end = utf8.endIndex
        func isOWS(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while start < end, isOWS(utf8[start]) { utf8.formIndex(after: &start) }
        while start < end {
            let last = utf8.index(before: end)
            guard isOWS(utf8[last]) else { break }
            end = last
        }
        return String(self[start..<end])
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs (RFC 9110's OWS); see
    /// `Substring.trimmingOptionalWhitespace()`.
    ///
    /// ```swift
    /// " gzip\t".trimmingOptionalWhitespace()   // "gzip"
    /// ```
    package func trimmingOptionalWhitespace() -> String { self[...].trimmingOptionalWhitespace() }
}
