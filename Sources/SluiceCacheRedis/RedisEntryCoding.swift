import Foundation
import Sluice
import SluiceCache

/// How a ``SluiceCache/CachedResponse`` is stored in one Redis string: `SLC2`, a 4-byte big-endian
/// length, that many bytes of JSON (everything but the body; the header fields as
/// `HTTPFields.stored`, the text the SQLite store keeps), then the body as it is. A value in
/// another format (`SLC1`, the format before the fields were stored as text, included) is refused
/// with a ``RedisCacheError``, which the cache middleware treats as a miss.
enum RedisEntryCoding {
    private struct Header: Codable {
        var method: String
        var url: String
        var status: Int
        var reason: String?
        var fields: String
        var requestTime: Double
        var responseTime: Double
        var vary: [String: String?]
    }

    private static let magic = Data("SLC2".utf8)

    static func encode(_ entry: CachedResponse) throws -> Data {
        let header = Header(
            method: entry.method, url: entry.url, status: entry.status, reason: entry.reasonPhrase,
            fields: entry.headers.stored, requestTime: entry.requestTime.timeIntervalSince1970,
            responseTime: entry.responseTime.timeIntervalSince1970, vary: entry.varyValues
        )
        let json = try JSONEncoder().encode(header)
        var data = magic
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(entry.body)
        return data
    }

    /// - Throws: ``RedisCacheError`` naming the key when the bytes are not an entry of this format.
    static func decode(_ data: Data, key: String) throws -> CachedResponse {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, Data(bytes[0..<4]) == magic else {
            throw RedisCacheError("the Redis value for \(String(reflecting: key)) is not a Sluice cache entry")
        }
        let length = Int(bytes[4]) << 24 | Int(bytes[5]) << 16 | Int(bytes[6]) << 8 | Int(bytes[7])
        guard 8 + length <= bytes.count,
            let header = try? JSONDecoder().decode(Header.self, from: Data(bytes[8..<8 + length])),
            let fields = try? HTTPFields(stored: header.fields)
        else {
            throw RedisCacheError("the Redis value for \(String(reflecting: key)) is damaged")
        }
        return CachedResponse(
            method: header.method, url: header.url, status: header.status, reasonPhrase: header.reason, headers: fields,
            body: Data(bytes[(8 + length)...]), requestTime: Date(timeIntervalSince1970: header.requestTime),
            responseTime: Date(timeIntervalSince1970: header.responseTime), varyValues: header.vary
        )
    }
}
