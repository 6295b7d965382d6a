import CSQLite
import Dispatch
import Foundation
import Sluice
import SluiceSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The default ``CacheStore``: one SQLite file, shared safely by threads and processes.
///
/// - WAL journal, `synchronous=NORMAL`, a busy timeout, prepared statements, bound parameters only.
/// - Bodies are BLOBs; bodies above ``Configuration/bodyFileThreshold`` go in files beside the
///   database (`<path>.bodies/`), written to a temporary file and renamed into place.
/// - A size limit with least-recently-used eviction; `totalSize` is kept by triggers, so it is one
///   row read.
/// - The database and body files are created with mode 0600.
/// - Another connection holding the write lock past the busy timeout is a miss (`get` returns nil,
///   `put` stores nothing): "database is locked" never reaches the caller.
/// - A file that is not a database, is corrupt, or has an unknown schema version is moved aside
///   (`<path>.corrupt-<time>`) and a new one is made; the event goes to ``Configuration/log``.
///
/// ```swift
/// import SluiceCache
///
/// let store = try SQLiteCacheStore(path: cachesDirectory + "/http-cache.sqlite")
/// let cache = CacheMiddleware(store: store)
/// try await store.totalSize()          // bytes
/// try await store.delete(prefix: "GET https://api.example.com/user/")
/// ```
public final class SQLiteCacheStore: CacheStore {
    /// The store's limits and hooks.
    public struct Configuration: Sendable {
        /// The most bytes kept; the least recently used entries go first. 0: no limit.
        public var maximumSize: Int
        /// Bodies larger than this many bytes are kept in files beside the database.
        public var bodyFileThreshold: Int
        /// How long to wait for another connection's write lock before treating the call as a miss.
        public var busyTimeout: Duration
        /// Where recoveries and dropped writes are reported (standard error by default).
        public var log: @Sendable (String) -> Void
        /// A hard cap on the database file in bytes (`PRAGMA max_page_count`); a write past it fails
        /// as a full disk would, with `SQLITE_FULL`. `nil`: only the disk limits it. Less than
        /// ``minimumFileSize`` is `.misconfigured`: the schema alone needs more.
        public var maximumFileSize: Int?

        /// The smallest ``maximumFileSize`` a store opens with: 64 KiB.
        public static let minimumFileSize = 64 << 10

        /// Settings with each value given, or its default.
        public init(
            maximumSize: Int = 64 << 20, bodyFileThreshold: Int = 64 << 10, busyTimeout: Duration = .seconds(5),
            log: @escaping @Sendable (String) -> Void = { SystemFile.warn("sluice-cache: " + $0) },
            maximumFileSize: Int? = nil
        ) {
            self.maximumSize = maximumSize
            self.bodyFileThreshold = bodyFileThreshold
            self.busyTimeout = busyTimeout
            self.log = log
            self.maximumFileSize = maximumFileSize
        }

        /// 64 MiB, bodies over 64 KiB in files, a 5 s busy timeout, logs to standard error.
        public static let `default` = Configuration()
    }

    /// The schema this code reads and writes (`PRAGMA user_version`).
    static let schemaVersion: Int32 = 1

    /// The database file.
    public let path: String
    /// How it behaves.
    public let configuration: Configuration
    /// Reads run on the caller's thread (a WAL reader never waits for writers), or off it when that
    /// is a transport's event thread (`BlockingWork`, THREATS §15).
    private let reader: Locked<CacheDatabase>
    /// Writes run on `queue`, one at a time, so a slow write (or another process holding the write
    /// lock) never stalls the caller's executor, such as a transport's event thread.
    private let writer: Locked<CacheDatabase>
    private let queue = DispatchQueue(label: "sluice.sqlite-cache-store")
    private let pendingPuts = Locked(PendingPuts())

    /// Opens (or creates) the store at `path`, recovering from a corrupt or foreign file.
    ///
    /// - Throws: ``SQLiteCacheError`` when the file cannot be opened or created at all (a missing
    ///   folder, no permission); `SluiceError` `.misconfigured` for a ``Configuration/maximumFileSize``
    ///   under ``Configuration/minimumFileSize``.
    public init(path: String, configuration: Configuration = .default) throws {
        if let cap = configuration.maximumFileSize, cap < Configuration.minimumFileSize {
            throw SluiceError(
                .misconfigured,
                "SQLiteCacheStore.Configuration.maximumFileSize is \(cap) bytes; the cache's schema alone needs more: give at least "
                    + "\(Configuration.minimumFileSize) (64 KiB), or nil for no cap")
        }
        self.path = path
        self.configuration = configuration
        do {
            writer = Locked(try CacheDatabase.open(path: path, configuration: configuration))
            reader = Locked(try CacheDatabase.open(path: path, configuration: configuration))
        } catch let error as SQLiteError {
            throw SQLiteCacheError(error)
        }
    }

    // MARK: CacheStore

    public func get(_ key: String) async throws -> CachedResponse? {
        let found: (entry: CachedResponse, stale: Bool)?
        do {
            found = try await BlockingWork.run { try self.read { try $0.get(key) } }
        } catch let error as SQLiteCacheError where error.code == SQLITE_BUSY || error.code == SQLITE_LOCKED {
            return nil  // another connection held the database past the timeout: a miss
        }
        if let found, found.stale {
            // Least-recently-used order is kept to the minute, by the writer, without waiting.
            queue.async { _ = try? self.writeNow { try $0.touch(key) } }
        }
        return found?.entry
    }

    public func put(_ entry: CachedResponse, for key: String) async throws {
        // Puts that arrive while the writer is busy are committed together, in one transaction.
        try await ThreadSanitizer.withContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            let schedule = pendingPuts.withLock { pending -> Bool in
                pending.items.append((entry, key, continuation))
                defer { pending.scheduled = true }
                return !pending.scheduled
            }
            if schedule { queue.async { self.commitPendingPuts() } }
        }
    }

    private struct PendingPuts {
        var items: [(entry: CachedResponse, key: String, done: UnsafeContinuation<Void, any Error>)] = []
        var scheduled = false
    }

    /// On the queue: every put waiting, in one transaction.
    private func commitPendingPuts() {
        let batch = pendingPuts.withLock { pending in
            defer { pending.items = []; pending.scheduled = false }
            return pending.items
        }
        let result = Result { try writeNow { try $0.put(batch.map { ($0.entry, $0.key) }) } }
        for item in batch { ThreadSanitizer.resume(item.done, with: result) }
    }

    @discardableResult
    public func delete(_ key: String) async throws -> Bool {
        try await write { try $0.delete(key) }
    }

    @discardableResult
    public func delete(prefix: String) async throws -> Int {
        try await write { try $0.delete(prefix: prefix) }
    }

    public func clear() async throws {
        try await write { try $0.clear() }
    }

    public func totalSize() async throws -> Int {
        try await BlockingWork.run { try self.read { try $0.totalSize() } }
    }

    public func entryCount() async throws -> Int {
        try await BlockingWork.run { try self.read { try $0.entryCount() } }
    }

    public func items() async throws -> [CacheItem] {
        try await BlockingWork.run { try self.read { try $0.items() } }
    }

    // MARK: Connections

    /// Runs `body` on the reader connection, here; after damage is found, once more on a new file.
    /// SQLite's errors reach callers as ``SQLiteCacheError``.
    private func read<T>(_ body: (inout CacheDatabase) throws -> T) throws -> T {
        do {
            do {
                return try reader.withLock { try body(&$0) }
            } catch let error as SQLiteError where error.isCorruption {
                try recover(from: error)
                return try reader.withLock { try body(&$0) }
            }
        } catch let error as SQLiteError {
            throw SQLiteCacheError(error)
        }
    }

    /// Runs `body` on the writer connection, on the store's queue.
    private func write<T: Sendable>(_ body: @escaping @Sendable (inout CacheDatabase) throws -> T) async throws -> T {
        try await ThreadSanitizer.withContinuation { continuation in
            queue.async { ThreadSanitizer.resume(continuation, with: Result { try self.writeNow(body) }) }
        }
    }

    /// `body` on the writer connection (on the queue); after damage is found, once more on a new
    /// file. Another process holding the write lock past the busy timeout gets two more tries.
    /// SQLite's errors reach callers as ``SQLiteCacheError``.
    private func writeNow<T>(_ body: (inout CacheDatabase) throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try writer.withLock { try body(&$0) }
            } catch let error as SQLiteError where error.isCorruption {
                do {
                    try recover(from: error)
                    return try writer.withLock { try body(&$0) }
                } catch let error as SQLiteError {
                    throw SQLiteCacheError(error)
                }
            } catch let error as SQLiteError where error.code == SQLITE_BUSY && attempt < 2 {
                attempt += 1
            } catch let error as SQLiteError {
                throw SQLiteCacheError(error)
            }
        }
    }

    /// Moves a damaged database aside and reopens both connections on a new one. Takes the writer's
    /// lock, then the reader's (the only place that holds both).
    private func recover(from error: SQLiteError) throws {
        try writer.withLock { writer in
            try reader.withLock { reader in
                configuration.log("\(path) is damaged (\(error)); moving it aside and starting a new cache")
                writer.close()
                reader.close()
                CacheDatabase.moveAside(path)
                writer = try CacheDatabase.open(path: path, configuration: configuration)
                reader = try CacheDatabase.open(path: path, configuration: configuration)
            }
        }
    }
}
