/// Reads the counts a Redis reply declares (`*2147483647`, `$1099511627776`), chunk by chunk as
/// it arrives, before hiredis sees a byte of it: a count the reply limit cannot hold is refused
/// there, so nothing is reserved for it and no parser walks it. Each element of an aggregate takes
/// at least 3 bytes (`_\r\n`), so an array of `n` needs `3n`; a blob of `n` bytes needs `n`.
/// Only the RESP framing is read: a blob's bytes are skipped, not looked at.
package struct RedisReplyScanner {
    /// The reply limit, and the setting that names it.
    let limit: Int
    let setting: String
    /// Bytes of a blob still to skip, its CRLF included.
    private var skipping = 0
    /// The least bytes the elements declared so far need, nested aggregates' included: what
    /// hiredis would reserve is bounded by the limit across the whole reply, not per array.
    private var declared = 0
    /// Whether a line has begun (its type byte read), and whether it is a count's.
    private var inLine = false
    private var countKind: Kind?
    /// The digits of the count line being read.
    private var digits: [UInt8] = []
    /// A count line longer than this is no count: refused.
    private static let longestCount = 24
    /// The longest simple string, error or number line read: 64 KiB.
    static let longestLine = 64 << 10
    /// Bytes of the current line that is not a count, so far.
    private var lineLength = 0

    package init(limit: Int, setting: String) {
        self.setting = setting
        self.limit = max(0, limit)
    }

    /// Reads `bytes`; what count the reply declares that the limit cannot hold, if any. Lines
    /// other than counts (a simple string, an error, a number) are skipped to their end without
    /// being kept: the byte limit bounds them.
    package mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var index = 0
        while index < bytes.count {
            if skipping > 0 {
                let taken = min(skipping, bytes.count - index)
                skipping -= taken
                index += taken
                continue
            }
            if !inLine {
                inLine = true
                countKind = Self.counted(bytes[index])
                digits.removeAll(keepingCapacity: true)
                index += 1
                continue
            }
            guard let kind = countKind else {
                // Not a count: to the end of the line, unread, and no longer than a line of
                // Redis's is (hiredis looks for its end from the start again at each read, so an
                // endless one would cost time in the square of its length).
                guard let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else {
                    lineLength += bytes.count - index
                    if lineLength > Self.longestLine { return "a reply line longer than \(Self.longestLine) bytes (no Redis reply has one)" }
                    return nil
                }
                index = end + 1
                inLine = false
                lineLength = 0
                continue
            }
            let byte = bytes[index]
            index += 1
            guard byte == UInt8(ascii: "\n") else {
                if byte != UInt8(ascii: "\r") { digits.append(byte) }
                if digits.count > Self.longestCount { return "a reply header longer than any count" }
                continue
            }
            inLine = false
            guard let count = Int(String(decoding: digits, as: UTF8.self)), count >= 0 else { continue }  // -1: nil
            switch kind {
            case .aggregate(let elementsPerCount):
                let (needed, overflow) = count.multipliedReportingOverflow(by: 3 * elementsPerCount)
                let (total, totalOverflow) = declared.addingReportingOverflow(needed)
                declared = total
                if overflow || totalOverflow || total > limit {
                    return "a reply that declares \(count) elements, which need more than the limit of \(limit) bytes "
                        + "(\(setting))"
                }
            case .blob:
                guard count <= limit else {
                    return "a reply that declares a \(count)-byte string, more than the limit of \(limit) bytes (\(setting))"
                }
                skipping = count + 2
            }
        }
        return nil
    }

    private enum Kind {
        case aggregate(Int)
        case blob
    }

    /// The kind of count a RESP2 or RESP3 type byte introduces, or `nil` for a line of its own.
    private static func counted(_ type: UInt8) -> Kind? {
        switch type {
        case UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: ">"): .aggregate(1)
        case UInt8(ascii: "%"), UInt8(ascii: "|"): .aggregate(2)  // a map's count is of pairs
        case UInt8(ascii: "$"), UInt8(ascii: "="), UInt8(ascii: "!"): .blob
        default: nil
        }
    }
}
