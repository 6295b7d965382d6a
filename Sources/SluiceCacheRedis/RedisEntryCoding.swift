import Foundation
import Sluice
import SluiceCache

/// How a ``SluiceCache/CachedResponse`` is stored in one Redis string: `SLC3`, then the entry's
/// parts in order, each text a 4-byte big-endian length and its UTF-8 bytes: the method, the URL,
/// the status (4 bytes), the reason phrase (a presence byte, then the text), the header fields (as
/// `HTTPFields.stored`, the text the SQLite store keeps), the request and response times (each the
/// 8 bytes of a `Double`, seconds since 1970), the `Vary` values (a 4-byte count, then each name
/// and, after a presence byte, its value), and last the body as it is. Reading it is a walk over
/// the bytes, with no parser. A value in another format (`SLC2`, the earlier JSON header, and
/// `SLC1` included) is refused with a ``RedisCacheError``, which the cache middleware treats as a
/// miss. `package`: the store's tests read and write it directly.
package enum RedisEntryCoding {
    private static let magic: [UInt8] = Array("SLC3".utf8)

    package static func encode(_ entry: CachedResponse) throws -> Data {
        var bytes = magic
        bytes.reserveCapacity(256 + entry.url.utf8.count + entry.body.count)
        func integer(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        func text(_ value: String) {
            integer(UInt32(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
        }
        func optional(_ value: String?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { text(value) }
        }
        text(entry.method)
        text(entry.url)
        integer(UInt32(truncatingIfNeeded: entry.status))
        optional(entry.reasonPhrase)
        text(entry.headers.stored)
        for time in [entry.requestTime, entry.responseTime] {
            withUnsafeBytes(of: time.timeIntervalSince1970.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
        }
        integer(UInt32(entry.varyValues.count))
        for (name, value) in entry.varyValues.sorted(by: { $0.key < $1.key }) {
            text(name)
            optional(value)
        }
        var data = Data(bytes)
        data.append(entry.body)
        return data
    }

    /// - Throws: ``RedisCacheError`` naming the key when the bytes are not an entry of this format.
    package static func decode(_ data: Data, key: String) throws -> CachedResponse {
        guard data.count >= 4, data.prefix(4).elementsEqual(magic) else {
            throw RedisCacheError("the Redis value for \(String(reflecting: key)) is not a Sluice cache entry")
        }
        let entry = data.withUnsafeBytes { buffer -> CachedResponse? in
            var reader = Reader(bytes: buffer, offset: 4)
            guard let method = reader.text(), let url = reader.text(), let status = reader.integer(),
                let reason = reader.optional(), let stored = reader.run(), let fields = try? HTTPFields(parsing: stored),
                let requestTime = reader.time(), let responseTime = reader.time(), let count = reader.integer()
            else { return nil }
            var vary: [String: String?] = [:]
            for _ in 0..<count {
                guard let name = reader.text(), let value = reader.optional() else { return nil }
                vary[name] = value
            }
            return CachedResponse(
                method: method, url: url, status: Int(status), reasonPhrase: reason, headers: fields,
                body: Data(buffer[reader.offset...]), requestTime: requestTime, responseTime: responseTime, varyValues: vary
            )
        }
        guard let entry else { throw RedisCacheError("the Redis value for \(String(reflecting: key)) is damaged") }
        return entry
    }

    /// Reads the parts in order; `nil` as soon as one would run past the end or is not UTF-8.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int

        mutating func integer() -> UInt32? {
            guard bytes.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func text() -> String? {
            guard let length = integer().map(Int.init), bytes.count - offset >= length else { return nil }
            defer { offset += length }
            let raw = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
            // Decoding valid UTF-8 changes nothing; anything else was repaired, and differs.
            let text = String(decoding: raw, as: UTF8.self)
            return text.utf8.elementsEqual(raw) ? text : nil
        }

        /// A length-prefixed run of bytes.
        mutating func run() -> [UInt8]? {
            guard let length = integer().map(Int.init), bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return [UInt8](bytes[offset..<offset + length])
        }

        /// A presence byte (0 or 1), then the text when it is 1.
        mutating func optional() -> String?? {
            guard offset < bytes.count, bytes[offset] <= 1 else { return nil }
            offset += 1
            guard bytes[offset - 1] == 1 else { return .some(nil) }
            return text().map { .some($0) }
        }

        mutating func time() -> Date? {
            guard bytes.count - offset >= 8 else { return nil }
            defer { offset += 8 }
            let bits = bytes[offset..<offset + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Date(timeIntervalSince1970: Double(bitPattern: bits))
        }
    }
}
