import Foundation
import Sluice
import SluiceCache
import SluiceCacheRedis
import SluiceTestSupport
import Testing

/// Issue 27, item 6: everything a Redis sends is a hostile peer's. A reply of any size, any
/// depth or any pace ends with a ``RedisCacheError`` naming the limit it crossed, within the
/// command timeout, holding no more than the reply limit; a cancelled call stops waiting at once.
@Suite("RedisCacheStore against a hostile Redis")
struct RedisCacheStoreHostileTests {
    static func store(_ redis: FakeRedis, maxReplySize: Int = 1 << 20, commandTimeout: Duration = .seconds(5)) -> RedisCacheStore {
        var configuration = RedisCacheStore.Configuration(port: redis.port, commandTimeout: commandTimeout, log: { _ in })
        configuration.maxReplySize = maxReplySize
        return RedisCacheStore(configuration: configuration)
    }

    /// One bulk string of `size` bytes, framed.
    static func blob(_ size: Int) -> Data {
        Data("$\(size)\r\n".utf8) + Data(repeating: 0x41, count: size) + Data("\r\n".utf8)
    }

    static func expectMessage(_ expected: String, _ call: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await call()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch {
            #expect((error as? RedisCacheError)?.message == expected, sourceLocation: sourceLocation)
        }
    }

    /// A reply of a thousand 64 KiB strings, 64 MiB in all (each count within the limit): refused
    /// once the limit is read, before more is held. (Before: hiredis read until the command
    /// timeout, holding it all.)
    @Test func aReplyLargerThanTheLimitStopsAtTheLimit() async throws {
        let redis = try FakeRedis { _, piece in piece == 0 ? Data("*1000\r\n".utf8) : Self.blob(64 << 10) }
        defer { redis.shutdown() }
        let store = Self.store(redis)
        await Self.expectMessage(
            "Redis at 127.0.0.1:\(redis.port) sent a reply to GET larger than the limit of 1048576 bytes (RedisCacheStore.Configuration.maxReplySize)"
        ) { _ = try await store.get("k") }
        // What the server managed to write is the limit plus what the sockets' buffers hold.
        #expect(redis.bytesWritten < (1 << 20) + (8 << 20))
    }

    /// The bound in bytes held, measured in a process of its own: a reply that never ends, sent
    /// as fast as loopback goes for up to the 10 s command timeout, leaves the reader's peak
    /// within a few times the 16 MiB limit (before: everything sent in those 10 s, gigabytes).
    @Test func anEndlessReplyLeavesAProcessItsLimitNotMore() async throws {
        let redis = try FakeRedis { _, piece in piece == 0 ? Data("*1000\r\n".utf8) : Self.blob(1 << 20) }
        defer { redis.shutdown() }
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-cache-stress")
        process.arguments = ["redis-get-peak", String(redis.port), String(16 << 20)]
        let (data, status) = try await Blocking.output(of: process)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(status == 0)
        #expect(
            lines.first
                == "error Redis at 127.0.0.1:\(redis.port) sent a reply to GET larger than the limit of 16777216 bytes "
                + "(RedisCacheStore.Configuration.maxReplySize)", "\(lines)")
        let peak = Int(lines.last?.split(separator: " ").last ?? "") ?? .max
        print("an endless Redis reply with a 16 MiB limit: peak resident \(peak) KiB")
        #expect(peak < MemoryBounds.scaled(96 << 10), "peak \(peak) KiB")
    }

    /// Many tiny elements: the limit counts every byte of the reply, not one buffer.
    @Test func anArrayOfEndlessTinyElementsStopsAtTheLimit() async throws {
        let redis = try FakeRedis { _, piece in
            piece == 0 ? Data("*65536\r\n".utf8) : Data(String(repeating: ":1\r\n", count: 4096).utf8)
        }
        defer { redis.shutdown() }
        await Self.expectMessage(
            "Redis at 127.0.0.1:\(redis.port) sent a reply to GET larger than the limit of 262144 bytes (RedisCacheStore.Configuration.maxReplySize)"
        ) { _ = try await Self.store(redis, maxReplySize: 256 << 10).get("k") }
    }

    /// Issue 41, item 9: the counts a reply declares are checked against the limit before hiredis
    /// reserves or parses anything: `*2147483647` with nothing after it, a terabyte string, and
    /// nested arrays whose counts add up past it end at once, well inside a 0.5 s command timeout
    /// (before: `*2147483647` spun a core for 12 s past it).
    @Test(arguments: [
        ("*2147483647\r\n", "a reply that declares 2147483647 elements, which need more than the limit of 262144 bytes"),
        ("$1099511627776\r\n", "a reply that declares a 1099511627776-byte string, more than the limit of 262144 bytes"),
        ("%9223372036854775807\r\n", "a reply that declares 9223372036854775807 elements, which need more than the limit of 262144 bytes"),
        ("*2\r\n*90000\r\n", "a reply that declares 90000 elements, which need more than the limit of 262144 bytes"),
    ])
    func aDeclaredCountPastTheLimitIsRefusedAtOnce(header: String, problem: String) async throws {
        let redis = try FakeRedis { _, piece in piece == 0 ? Data(header.utf8) : nil }
        defer { redis.shutdown() }
        let started = ContinuousClock.now
        await Self.expectMessage(
            "Redis at 127.0.0.1:\(redis.port) sent \(problem) (RedisCacheStore.Configuration.maxReplySize) in its reply to GET"
        ) { _ = try await Self.store(redis, maxReplySize: 256 << 10, commandTimeout: .milliseconds(500)).get("k") }
        #expect(started.duration(to: .now) < TestTiming.scaled(.seconds(30)))
    }

    /// A simple string that never ends is refused at 64 KiB: hiredis looks for a line's end from
    /// its start again at each read, so an endless one would cost time in the square of its length.
    @Test func anEndlessLineIsRefusedAtALinesLength() async throws {
        let redis = try FakeRedis { _, piece in piece == 0 ? Data("+".utf8) : Data(repeating: 0x41, count: 16 << 10) }
        defer { redis.shutdown() }
        await Self.expectMessage(
            "Redis at 127.0.0.1:\(redis.port) sent a reply line longer than 65536 bytes (no Redis reply has one) in its reply to GET"
        ) { _ = try await Self.store(redis).get("k") }
    }

    /// A reply that trickles in, a byte every 120 ms (five minutes in all), never trips a per-read
    /// timeout; the command timeout bounds the whole reply. (Before: the call went on for as long
    /// as the bytes came.)
    @Test func aTricklingReplyEndsAtTheCommandTimeout() async throws {
        let reply = Data("$2500\r\n".utf8) + Data(repeating: 0x42, count: 2500) + Data("\r\n".utf8)
        let redis = try FakeRedis(interval: .milliseconds(120)) { _, piece in piece < reply.count ? reply[piece..<piece + 1] : nil }
        defer { redis.shutdown() }
        let store = Self.store(redis, commandTimeout: .milliseconds(400))
        let start = ContinuousClock.now
        do {
            _ = try await store.get("k")
            Issue.record("a reply of five minutes was read whole")
        } catch let error as RedisCacheError {
            #expect(error.message.hasPrefix("Redis at 127.0.0.1:\(redis.port) did not finish its reply to GET within 0.4 seconds"))
            #expect(error.message.contains("(RedisCacheStore.Configuration.commandTimeout, for the whole reply)"))
        }
        // The 400 ms timeout, and then an answer, however loaded the machine: far from five minutes.
        #expect(ContinuousClock.now - start < TestTiming.scaled(.seconds(30)))
    }

    /// Nested deeper than hiredis reads: a typed error, never a crash.
    @Test func aReplyNestedTooDeepIsRefused() async throws {
        let redis = try FakeRedis { _, piece in piece == 0 ? Data((String(repeating: "*1\r\n", count: 64) + ":1\r\n").utf8) : nil }
        defer { redis.shutdown() }
        do {
            _ = try await Self.store(redis).get("k")
            Issue.record("a reply 64 arrays deep was read")
        } catch let error as RedisCacheError {
            #expect(error.message.hasPrefix("Redis at 127.0.0.1:\(redis.port) sent a reply hiredis refuses: "))
            #expect(error.message.contains("depth"))
        }
    }

    /// A call cancelled while Redis says nothing (its deadline passed) stops waiting at once,
    /// where before it waited out the command timeout. (The FakeRedis connection stays open
    /// until the command timeout or its shutdown, which closes it.)
    @Test func aCancelledCallStopsWaitingAtOnce() async throws {
        let redis = try FakeRedis { _, _ in nil }  // reads commands, never answers
        defer { redis.shutdown() }
        let store = Self.store(redis, commandTimeout: .seconds(120))
        let call = Task { try await store.get("k") }
        try await Wait.until("the command reached the server") { !redis.commands.isEmpty }
        let start = ContinuousClock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        // Far from the 120 s command timeout, however loaded the machine is.
        #expect(ContinuousClock.now - start < TestTiming.scaled(.seconds(30)))
    }

    /// A server whose SCAN cursor never comes back to 0 cannot keep a listing going for ever.
    @Test func aScanThatNeverEndsIsRefused() async throws {
        let redis = try FakeRedis { command, piece in
            piece == 0 && command.first == "SCAN" ? Data("*2\r\n$1\r\n7\r\n*0\r\n".utf8) : nil
        }
        defer { redis.shutdown() }
        var configuration = RedisCacheStore.Configuration(port: redis.port, log: { _ in })
        configuration.maxScanRounds = 200
        let store = RedisCacheStore(configuration: configuration)
        await Self.expectMessage("SCAN did not end after 200 rounds: the server never returned cursor 0") { _ = try await store.entryCount() }
        #expect(redis.commands.count == 200)
        #expect(RedisCacheStore.Configuration.default.maxScanRounds == 100_000)
    }
}
