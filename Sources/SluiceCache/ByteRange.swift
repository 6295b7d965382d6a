/// A `Range` request field read for the cache (RFC 9110 §14.1.2): one byte range, several, or
/// something the cache does not answer (another unit, a syntax error), which it ignores.
///
/// ```swift
/// import SluiceCache
///
/// ByteRange.parse("bytes=0-99")      // .one(.init(first: 0, last: 99))
/// ByteRange.parse("bytes=-500")      // .one(.init(suffix: 500)): the last 500 bytes
/// ByteRange.parse("bytes=0-1,5-9")   // .several
/// ```
package enum ByteRange: Sendable, Hashable {
    /// One range.
    case one(Bounds)
    /// More than one: the origin answers.
    case several
    /// Not a byte range this cache reads: the field is ignored.
    case ignored

    /// One range's bounds: `first-last`, `first-`, or the last `suffix` bytes.
    package struct Bounds: Sendable, Hashable {
        /// The first byte, or `nil` for a suffix range.
        package let first: Int?
        /// The last byte, or `nil` for "to the end".
        package let last: Int?
        /// For a suffix range, how many bytes from the end.
        package let suffix: Int?

        /// `first-last`, or `first-` when `last` is `nil`.
        package init(first: Int, last: Int?) {
            self.first = first
            self.last = last
            self.suffix = nil
        }

        /// The last `suffix` bytes.
        package init(suffix: Int) {
            self.first = nil
            self.last = nil
            self.suffix = suffix
        }

        /// The first and last byte offsets within a body of `length` bytes, or `nil` when the
        /// range cannot be satisfied (it starts at or past the end, before 0 or after its last byte,
        /// or asks for no bytes).
        package func resolved(length: Int) -> (Int, Int)? {
            // Bounds a caller made may be anything: negative, or past each other.
            guard length > 0 else { return nil }
            if let suffix {
                guard suffix > 0 else { return nil }
                return (max(0, length - suffix), length - 1)
            }
            guard let first, first >= 0, first < length else { return nil }
            let end = min(last ?? (length - 1), length - 1)
            return end >= first ? (first, end) : nil
        }
    }

    /// Reads a `Range` field value.
    package static func parse(_ value: String) -> ByteRange {
        let trimmed = value.trimmingOptionalWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .ignored }
        let specs = trimmed.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingOptionalWhitespace() }
        guard specs.count == 1 else { return specs.allSatisfy({ !$0.isEmpty }) ? .several : .ignored }
        let parts = specs[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .ignored }
        func number(_ text: Substring) -> Int? {
            text.isEmpty || text.count > 18 || !text.allSatisfy({ $0.isASCII && $0.isNumber }) ? nil : Int(text)
        }
        if parts[0].isEmpty {
            guard let suffix = number(parts[1]) else { return .ignored }
            return .one(Bounds(suffix: suffix))
        }
        guard let first = number(parts[0]) else { return .ignored }
        if parts[1].isEmpty { return .one(Bounds(first: first, last: nil)) }
        guard let last = number(parts[1]), last >= first else { return .ignored }
        return .one(Bounds(first: first, last: last))
    }
}
