import CCurl
import CCurlShim
import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reading the status line and Content-Length off the raw header lines.
extension CurlTransfer {
    /// The three digits after the protocol in a status line (`HTTP/1.1 206 Partial Content`).
    static func statusCode(_ line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20), space + 3 < line.count else { return 0 }
        var code = 0
        for byte in line[(space + 1)...(space + 3)] {
            guard byte >= 0x30 && byte <= 0x39 else { return 0 }
            code = code * 10 + Int(byte - 0x30)
        }
        return code
    }

    /// The reason phrase of a status line (`HTTP/1.1 200 OK`), or "" when there is none.
    static func reasonPhrase(_ line: UnsafeRawBufferPointer) -> String {
        var end = line.count
        while end > 0 && (line[end - 1] == 0x0A || line[end - 1] == 0x0D) { end -= 1 }
        guard let firstSpace = line[..<end].firstIndex(of: 0x20),
            let secondSpace = line[(firstSpace + 1)..<end].firstIndex(of: 0x20)
        else { return "" }
        return String(decoding: line[(secondSpace + 1)..<end], as: UTF8.self)
    }

    /// What the header lines of one section hold, noted line by line: enough to skip the field
    /// lookups of a finished section when they can find nothing to object to.
    struct SectionLines {
        /// `Content-Length` lines, and how many of them are one plain number (1 to 18 digits,
        /// optional whitespace around it).
        var contentLengths = 0
        var plainContentLengths = 0
        /// The length the last plain `Content-Length` line declared: the body's, once the section
        /// passed `contentLengthProblem` (every value agrees).
        var declaredLength: Int?
        /// A line that continues the one before (obsolete folding): values are joined later, so
        /// nothing seen line by line can be trusted.
        var folded = false
        var transferEncoding = false
        var contentEncoding = false

        /// Whether the section's `Content-Length` fields need the full check: none or one plain
        /// number need none.
        var contentLengthNeedsCheck: Bool { folded || contentLengths > 1 || contentLengths != plainContentLengths }

        /// Notes one header line (with its line end); the length a plain `Content-Length` line
        /// declares, nil for any other line.
        @discardableResult
        mutating func note(_ line: UnsafeRawBufferPointer) -> Int? {
            guard let first = line.first else { return nil }
            if first == 0x20 || first == 0x09 {
                folded = true
            } else if CurlTransfer.hasName(line, contentLengthName) {
                contentLengths += 1
                let length = CurlTransfer.plainNumber(line, from: contentLengthName.utf8CodeUnitCount + 1)
                if length != nil {
                    plainContentLengths += 1
                    declaredLength = length
                }
                return length
            } else if CurlTransfer.hasName(line, transferEncodingName) {
                transferEncoding = true
            } else if CurlTransfer.hasName(line, contentEncodingName) {
                contentEncoding = true
            }
            return nil
        }
    }

    /// Whether `line` starts with `name` (lowercase letters and `-`, any case in the line) and a
    /// colon. A `StaticString`, so no lazily made global is read for each line.
    @inline(__always)
    static func hasName(_ line: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[count] == 0x3A else { return false }
        let bytes = name.utf8Start
        for index in 0..<count where line[index] | 0x20 != bytes[index] { return false }
        return true
    }

    /// The value from `start` as one plain number: 1 to 18 digits with optional spaces or tabs
    /// around them, then the line end; nil for anything else.
    static func plainNumber(_ line: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        var value = 0, digits = 0
        while index < line.count, line[index] >= 0x30 && line[index] <= 0x39 {
            guard digits < 18 else { return nil }
            value = value * 10 + Int(line[index] - 0x30)
            digits += 1
            index += 1
        }
        while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        while index < line.count, line[index] == 0x0D || line[index] == 0x0A { index += 1 }
        return digits > 0 && index == line.count ? value : nil
    }
}

extension CurlTransfer {
    /// What to reserve for a body the server says is `declared` bytes long: never more than the
    /// limit, nor than 1 MiB, however large the claim (a lie would otherwise reserve gigabytes).
    static func initialBodyCapacity(declared: Int, limit: Int) -> Int {
        max(0, min(declared, limit, 1 << 20))
    }

    /// Why these `Content-Length` values cannot frame a body, or nil when they agree: each must
    /// be digits that fit in 63 bits, and a repeated field (or a list, `10, 10`) must repeat the
    /// same number (RFC 9110 §8.6).
    static func contentLengthProblem(_ values: [String]) -> String? {
        // The usual case, one plain number that fits: nothing to split or compare.
        guard let only = values.first else { return nil }
        if values.count == 1, !only.isEmpty, only.utf8.count <= 18, only.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return nil
        }
        var lengths: Set<Int64> = []
        for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = item.trimmingOptionalWhitespace()
                guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    return "a Content-Length that is not a number (\(String(reflecting: String(item))))"
                }
                guard let length = Int64(digits) else { return "a Content-Length too large to hold (\(digits))" }
                lengths.insert(length)
            }
        }
        guard lengths.count <= 1 else {
            return "Content-Length fields that disagree (\(lengths.sorted().map(String.init).joined(separator: " and ")))"
        }
        return nil
    }
}

/// The names `SectionLines` looks for, lowercase.
private let contentLengthName: StaticString = "content-length"
private let transferEncodingName: StaticString = "transfer-encoding"
private let contentEncodingName: StaticString = "content-encoding"
