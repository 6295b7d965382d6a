import Foundation
import Sluice
import SluiceCache
import SluiceCacheRedis
import Testing

@Suite("RedisEntryCoding")
struct RedisEntryCodingTests {
    static let entries = [
        CacheStoreEntry.sample,
        CachedResponse(
            method: "GET", url: "https://example.com/caf%C3%A9?q=ü", status: 203, reasonPhrase: "Non-Authoritative",
            headers: ["Vary": "Accept, Cookie", "ETag": "\"x\""], body: Data((0...255).map(UInt8.init)),
            requestTime: Date(timeIntervalSince1970: 1_700_000_000.25), responseTime: Date(timeIntervalSince1970: 1_700_000_001.5),
            varyValues: ["accept": "application/json", "cookie": nil]),
        CachedResponse(
            method: "POST", url: "https://example.com/search", status: 200, headers: [:], body: Data(),
            requestTime: Date(timeIntervalSince1970: 0), responseTime: Date(timeIntervalSince1970: 0)),
    ]

    /// Whether `decode` throws exactly the damaged-value error.
    func damaged(_ decode: () throws -> CachedResponse) -> Bool {
        do {
            _ = try decode()
            return false
        } catch {
            return (error as? RedisCacheError)?.message == #"the Redis value for "k" is damaged"#
        }
    }

    @Test(arguments: entries)
    func anEntryComesBackExactly(_ entry: CachedResponse) throws {
        #expect(try RedisEntryCoding.decode(try RedisEntryCoding.encode(entry), key: "k") == entry)
    }

    @Test func everyTruncationBeforeTheBodyIsDamaged() throws {
        let entry = Self.entries[1]
        let encoded = try RedisEntryCoding.encode(entry)
        let bodyStart = encoded.count - entry.body.count
        for length in 4..<bodyStart {
            #expect(damaged { try RedisEntryCoding.decode(encoded.prefix(length), key: "k") }, "\(length) bytes")
        }
        // Past that point, a shorter value is a shorter body: the length of the body is Redis's.
        #expect(try RedisEntryCoding.decode(encoded.prefix(bodyStart), key: "k").body == Data())
    }

    @Test func aPresenceByteOtherThanZeroOrOneAndTextThatIsNotUTF8AreDamaged() throws {
        var encoded = try RedisEntryCoding.encode(CacheStoreEntry.sample)
        // SLC3, "GET" (4 + 3), the URL (4 + 20), the status (4): then the reason's presence byte.
        let presence = 4 + 7 + 4 + "https://example.com/".utf8.count + 4
        #expect(encoded[presence] == 0)
        encoded[presence] = 2
        #expect(damaged { try RedisEntryCoding.decode(encoded, key: "k") })
        var notUTF8 = try RedisEntryCoding.encode(CacheStoreEntry.sample)
        notUTF8[8] = 0xFF  // the first byte of "GET"
        #expect(damaged { try RedisEntryCoding.decode(notUTF8, key: "k") })
    }
}
