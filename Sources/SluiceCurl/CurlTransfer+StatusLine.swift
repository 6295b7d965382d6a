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

    /// The value of a `Content-Length: …` line, read from its bytes; nil for any other line.
    static func contentLength(_ line: UnsafeRawBufferPointer) -> Int? {
        guard line.count > 15, line[14] == 0x3A, line[0] | 0x20 == 0x63, line[7] == 0x2D,  // ":", "c", "-"
            line[8] | 0x20 == 0x6C, line[13] | 0x20 == 0x68
        else { return nil }  // "l", "h"
        for (offset, expected) in contentLengthName.enumerated() where line[offset] | 0x20 != expected { return nil }
        var length = 0, digits = 0
        for byte in line[15...] where byte != 0x20 && byte != 0x09 && byte != 0x0D && byte != 0x0A {
            guard byte >= 0x30 && byte <= 0x39, digits < 18 else { return nil }
            length = length * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? length : nil
    }
}

extension CurlTransfer {
    /// What to reserve for a body the server says is `declared` bytes long: never more than the
    /// limit, nor than 1 MiB, however large the claim (a lie would otherwise reserve gigabytes).
    static func initialBodyCapacity(declared: Int, limit: Int) -> Int {
        min(declared, limit, 1 << 20)
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

/// "content-length", lowercase, as bytes.
private let contentLengthName: [UInt8] = Array("content-length".utf8)
