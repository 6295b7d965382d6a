import CSQLite
import Foundation
import Sluice
import SluiceCache
import SluiceTestSupport
import SluiceTesting
import Testing

/// Collects what a store logs.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func add(_ line: String) { lines.withLock { $0.append(line) } }
}

func sampleEntry(_ body: Data = Data("hello".utf8), url: String = "https://example.com/a") -> CachedResponse {
    CachedResponse(
        method: "GET", url: url, status: 203, reasonPhrase: "Maybe",
        headers: ["Cache-Control": "max-age=60", "ETag": "\"x\"", "Vary": "Accept, Accept-Language"],
        body: body, requestTime: Date(timeIntervalSince1970: 1_000), responseTime: Date(timeIntervalSince1970: 1_001.5),
        varyValues: ["accept": "application/json", "accept-language": nil]
    )
}

@Suite("SQLiteCacheStore")
struct SQLiteCacheStoreTests {
    let folder: TemporaryDirectory
    let log = LogLines()

    init() throws { folder = try TemporaryDirectory(prefix: "sluice-cache") }

    func store(_ change: (inout SQLiteCacheStore.Configuration) -> Void = { _ in }) throws -> SQLiteCacheStore {
        var configuration = SQLiteCacheStore.Configuration(log: { [log] in log.add($0) })
        change(&configuration)
        return try SQLiteCacheStore(path: folder.filePath("cache.sqlite"), configuration: configuration)
    }

    @Test(arguments: ["", "-wal", "-shm"])
    func aSymbolicLinkAtTheDatabaseOrItsWALOrSharedMemoryIsRefused(suffix: String) throws {
        let path = folder.filePath("cache.sqlite")
        let target = folder.filePath("elsewhere")
        try FileManager.default.createSymbolicLink(atPath: path + suffix, withDestinationPath: target)  // dangling
        #expect {
            _ = try SQLiteCacheStore(path: path)
        } throws: { error in
            (error as? SQLiteCacheError)?.code == SQLITE_CANTOPEN
                && (error as? SQLiteCacheError)?.message == "\(path + suffix) is a symbolic link; a database is never opened through one"
        }
        #expect(!FileManager.default.fileExists(atPath: target), "nothing is created through the link")
    }

    @Test(arguments: ["../victim", "/tmp/victim", ".hidden", ""])
    func aStoredBodyFileNameThatIsNotAPlainNameIsNeverReadOrDeleted(name: String) async throws {
        let victim = folder.filePath("victim")
        try Data("not yours".utf8).write(to: URL(fileURLWithPath: victim))
        let store = try store { $0.bodyFileThreshold = 10 }
        try await store.put(sampleEntry(Data(repeating: 7, count: 100)), for: "k")
        // A damaged or planted row points its body somewhere else.
        var db: OpaquePointer?
        sqlite3_open(folder.filePath("cache.sqlite"), &db)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "UPDATE entries SET body_file = ?1 WHERE key = 'k'", -1, &statement, nil)
        sqlite3_bind_text(statement, 1, name == "/tmp/victim" ? victim : name, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        #expect(sqlite3_step(statement) == SQLITE_DONE)
        sqlite3_finalize(statement)
        sqlite3_close(db)

        #expect(try await store.get("k") == nil)
        #expect(log.all.contains("the body file name stored for k is not a plain file name; treating it as a miss"), "\(log.all)")
        #expect(try await store.delete("k"))
        try await store.clear()
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "not yours")
    }

    @Test func anEntryComesBackExactly() async throws {
        let store = try store()
        let entry = sampleEntry()
        try await store.put(entry, for: "GET https://example.com/a")
        #expect(try await store.get("GET https://example.com/a") == entry)
        #expect(try await store.get("GET https://example.com/b") == nil)
        #expect(try await store.entryCount() == 1)
        #expect(try await store.totalSize() == entry.size)
        // Replacing keeps one entry and the right total.
        var bigger = entry
        bigger.body = Data(repeating: 7, count: 1_000)
        try await store.put(bigger, for: "GET https://example.com/a")
        #expect(try await store.entryCount() == 1)
        #expect(try await store.totalSize() == bigger.size)
        #expect(try await store.get("GET https://example.com/a")?.body == bigger.body)
    }

    @Test func deletingByKeyPrefixAndClearing() async throws {
        let store = try store()
        for path in ["a", "b", "c/1", "c/2"] {
            try await store.put(sampleEntry(url: "https://example.com/\(path)"), for: "GET https://example.com/\(path)")
        }
        try await store.put(sampleEntry(url: "https://other.example/x"), for: "GET https://other.example/x")
        #expect(try await store.delete("GET https://example.com/a"))
        #expect(try await !store.delete("GET https://example.com/a"))
        #expect(try await store.delete(prefix: "GET https://example.com/c/") == 2)
        #expect(try await store.items().map(\.key).sorted() == ["GET https://example.com/b", "GET https://other.example/x"])
        // A prefix with SQL wildcard characters is taken literally.
        #expect(try await store.delete(prefix: "GET https://example.com/%") == 0)
        try await store.clear()
        #expect(try await store.entryCount() == 0)
        #expect(try await store.totalSize() == 0)
    }

    @Test func largeBodiesLiveInFilesBesideTheDatabase() async throws {
        let store = try store { $0.bodyFileThreshold = 1_024 }
        let body = Data((0..<100_000).map { UInt8($0 % 251) })
        try await store.put(sampleEntry(body), for: "big")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.filePath("cache.sqlite.bodies"))
        #expect(files.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.filePath("cache.sqlite.bodies/\(files[0])"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try await store.get("big")?.body == body)
        // Replacing and deleting remove the old files.
        try await store.put(sampleEntry(body + body), for: "big")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.filePath("cache.sqlite.bodies")).count == 1)
        try await store.delete("big")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.filePath("cache.sqlite.bodies")).isEmpty)
    }

    @Test func orphanedBodyFilesOlderThanAnHourAreRemovedOnOpen() async throws {
        do {
            let store = try store { $0.bodyFileThreshold = 10 }
            try await store.put(sampleEntry(Data(repeating: 1, count: 100)), for: "kept")
        }
        let bodies = folder.filePath("cache.sqlite.bodies")
        let old = bodies + "/orphan-old", young = bodies + "/.orphan-young.tmp"
        #expect(FileManager.default.createFile(atPath: old, contents: Data("x".utf8)))
        #expect(FileManager.default.createFile(atPath: young, contents: Data("y".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: old)
        let store = try store { $0.bodyFileThreshold = 10 }
        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(FileManager.default.fileExists(atPath: young))
        #expect(try await store.get("kept")?.body == Data(repeating: 1, count: 100))
    }

    @Test func theDatabaseIsPrivateToItsOwner() async throws {
        let store = try store()
        try await store.put(sampleEntry(), for: "k")
        // The database and, while it is open in WAL mode, its -wal and -shm files.
        for suffix in ["", "-wal", "-shm"] {
            try #require(FileManager.default.fileExists(atPath: folder.filePath("cache.sqlite" + suffix)), "cache.sqlite\(suffix)")
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.filePath("cache.sqlite" + suffix))
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "cache.sqlite\(suffix)")
        }
    }

    @Test func theLeastRecentlyUsedGoFirstOverTheSizeLimit() async throws {
        let one = sampleEntry(Data(repeating: 1, count: 400)).size
        let store = try store { $0.maximumSize = one * 3 }
        for index in 0..<3 {
            try await store.put(sampleEntry(Data(repeating: 1, count: 400)), for: "k\(index)")
            try await Task.sleep(for: .milliseconds(2))
        }
        try await store.put(sampleEntry(Data(repeating: 1, count: 400)), for: "k3")
        #expect(try await store.items().map(\.key) == ["k1", "k2", "k3"])
        #expect(try await store.totalSize() <= one * 3)
    }

    @Test func twoConnectionsShareOneFile() async throws {
        let a = try store(), b = try store()
        try await a.put(sampleEntry(), for: "shared")
        #expect(try await b.get("shared") == sampleEntry())
        try await b.delete("shared")
        #expect(try await a.get("shared") == nil)
    }

    @Test func manyTasksAtOnceNeverFail() async throws {
        let store = try store { $0.bodyFileThreshold = 2_000 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<50 {
                        let key = "k\((worker * 7 + round) % 20)"
                        try await store.put(sampleEntry(Data(repeating: UInt8(round), count: round * 100)), for: key)
                        _ = try await store.get(key)
                        if round % 10 == 0 { _ = try await store.delete(prefix: "k1") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await store.entryCount()
        #expect(count == (try await store.items().count))
        #expect(try await store.totalSize() == (try await store.items().reduce(0) { $0 + $1.size }))
    }

    @Test func aFullDatabaseIsATypedErrorAndTheRequestStillGoesOut() async throws {
        let store = try store {
            $0.maximumFileSize = 64 << 10; $0.bodyFileThreshold = 1 << 20
        }
        try await store.put(sampleEntry(), for: "small")
        await #expect {
            try await store.put(sampleEntry(Data(repeating: 9, count: 200_000)), for: "big")
        } throws: { error in
            (error as? SQLiteCacheError)?.code == SQLITE_FULL
                && (error as? SQLiteCacheError)?.description == "SQLite error 13: database or disk is full"
        }
        // Nothing is half-stored, and what was there is still there.
        #expect(try await store.get("big") == nil)
        #expect(try await store.get("small") == sampleEntry())
        // Through the middleware, a full store is a miss: the response still arrives.
        let cache = CacheMiddleware(store: store)
        let next = MiddlewareNext { _, _ in HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=60"], body: Data(repeating: 1, count: 200_000)) }
        let response = try await cache.intercept(HTTPRequest(url: URL(string: "https://example.com/huge")!), context: RequestContext(), next: next)
        #expect(response.body.count == 200_000 && response.source == .network)
    }

    // MARK: Recovery

    @Test func aFileOfRandomBytesIsMovedAsideAndReplaced() async throws {
        let path = folder.filePath("cache.sqlite")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8_192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        let store = try store()
        try await store.put(sampleEntry(), for: "k")
        #expect(try await store.get("k") == sampleEntry())
        #expect(log.all.contains { $0.contains("moving it aside") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.hasPrefix("cache.sqlite.corrupt-") })
    }

    @Test func aTruncatedFileIsRecoveredFrom() async throws {
        do {
            let store = try store()
            for index in 0..<200 { try await store.put(sampleEntry(Data(repeating: 3, count: 2_000)), for: "k\(index)") }
        }
        // Fold the WAL in, then cut the database in half.
        var db: OpaquePointer?
        sqlite3_open(folder.filePath("cache.sqlite"), &db)
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
        sqlite3_close(db)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: folder.filePath("cache.sqlite")))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size / 2)
        try handle.close()

        let store = try store()
        // Every call either works or is a miss; none fails, and new entries can be stored.
        for index in 0..<200 { _ = try await store.get("k\(index)") }
        try await store.put(sampleEntry(), for: "new")
        #expect(try await store.get("new") == sampleEntry())
        // SQLite finds the damage when the store opens (SQLITE_CORRUPT) and the file is replaced.
        #expect(log.all.contains { $0.contains("SQLite error 11") && $0.contains("moving it aside") })
    }

    @Test func damageWhileTheStoreIsOpenIsRecoveredFromAtTheNextCall() async throws {
        let store = try store()
        for index in 0..<50 { try await store.put(sampleEntry(Data(repeating: 5, count: 3_000)), for: "k\(index)") }
        // Fold the WAL in, then scribble over the file behind the store's back.
        var db: OpaquePointer?
        sqlite3_open(folder.filePath("cache.sqlite"), &db)
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
        sqlite3_close(db)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.filePath("cache.sqlite")))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 64 << 10))
        try handle.close()
        // Every call is answered (a miss at worst); the store recovers and works again.
        for index in 0..<50 { _ = try await store.get("k\(index)") }
        try await store.put(sampleEntry(), for: "after")
        #expect(try await store.get("after") == sampleEntry())
        #expect(log.all.contains { $0.contains("moving it aside") })
    }

    @Test func anUnknownSchemaVersionIsMovedAside() async throws {
        do { _ = try store() }
        var db: OpaquePointer?
        sqlite3_open(folder.filePath("cache.sqlite"), &db)
        sqlite3_exec(db, "PRAGMA user_version = 99", nil, nil, nil)
        sqlite3_close(db)
        let store = try store()
        #expect(log.all.contains { $0.contains("unknown schema version 99") })
        try await store.put(sampleEntry(), for: "k")
        #expect(try await store.entryCount() == 1)
    }

    @Test func aFolderThatCannotHoldTheFileIsAClearError() throws {
        // A regular file where a folder should be: nothing can create the folder.
        let blocker = folder.filePath("plain-file")
        try Data().write(to: URL(fileURLWithPath: blocker))
        #expect {
            _ = try SQLiteCacheStore(path: blocker + "/inner/cache.sqlite")
        } throws: { error in
            (error as? SQLiteCacheError)?.code == SQLITE_CANTOPEN
                && "\(error)" == "SQLite error 14: cannot create the folder \(blocker)/inner for \(blocker)/inner/cache.sqlite: Not a directory"
        }
    }

    @Test func missingFoldersAreCreatedForTheOwnerOnly() async throws {
        let path = folder.filePath("a/b/cache.sqlite")
        let store = try SQLiteCacheStore(path: path)
        try await store.put(sampleEntry(), for: "k")
        #expect(try await store.entryCount() == 1)
        for made in [folder.filePath("a"), folder.filePath("a/b")] {
            #expect(try FileManager.default.attributesOfItem(atPath: made)[.posixPermissions] as? Int == 0o700)
        }
    }

    @Test func theMiddlewareWorksOverTheStore() async throws {
        let store = try store()
        let cache = CacheMiddleware(store: store)
        let next = MiddlewareNext { request, _ in
            var response = HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=60"], body: Data("net".utf8))
            response.request = request
            return response
        }
        let url = URL(string: "https://example.com/m")!
        #expect(try await cache.intercept(HTTPRequest(url: url), context: RequestContext(), next: next).source == .network)
        let cached = try await cache.intercept(HTTPRequest(url: url), context: RequestContext(), next: next)
        #expect(cached.source == .cache && cached.text == "net")
    }
}
