import CSQLite
import Dispatch
import Foundation
import Sluice

#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection and its prepared statements.
///
/// `@unchecked Sendable`: the connection lives inside the store's lock and is only reached
/// through `withLock`, one thread at a time (opened with SQLITE_OPEN_NOMUTEX for that reason); its
/// pointers never escape the lock.
struct CacheDatabase: ~Copyable, @unchecked Sendable {
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    let path: String
    let configuration: SQLiteCacheStore.Configuration

    private init(db: OpaquePointer, path: String, configuration: SQLiteCacheStore.Configuration) {
        self.db = db
        self.path = path
        self.configuration = configuration
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        if let db { sqlite3_close_v2(db) }
    }

    static func open(path: String, configuration: SQLiteCacheStore.Configuration) throws -> CacheDatabase {
        do {
            return try openOnce(path: path, configuration: configuration)
        } catch let error as SQLiteCacheError where error.isCorruption {
            configuration.log("\(path) is not a usable cache database (\(error)); moving it aside and starting a new one")
            moveAside(path)
            return try openOnce(path: path, configuration: configuration)
        }
    }

    private static func openOnce(path: String, configuration: SQLiteCacheStore.Configuration) throws -> CacheDatabase {
        // Create the file with mode 0600 first: SQLite gives its -wal and -shm files the same mode.
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SQLiteCacheError(code: SQLITE_CANTOPEN, message: "cannot open or create \(path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(fd)
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteCacheError(code: status, message: message)
        }
        var connection = CacheDatabase(db: handle, path: path, configuration: configuration)
        let milliseconds = Int32(clamping: configuration.busyTimeout.wholeMilliseconds)
        sqlite3_busy_timeout(handle, milliseconds)
        try connection.prepareSchema()
        try? FileManager.default.createDirectory(
            atPath: path + ".bodies", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        connection.removeOrphanedBodyFiles()
        return connection
    }

    mutating func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    /// Renames a damaged database (and its WAL and shared-memory files) out of the way.
    static func moveAside(_ path: String) {
        let stamp = Int(Date().timeIntervalSince1970 * 1000)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            _ = rename(path + suffix, "\(path).corrupt-\(stamp)\(suffix)")
        }
    }

    // MARK: Schema

    private mutating func prepareSchema() throws {
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        if let cap = configuration.maximumFileSize {
            let pageSize = max(512, try scalarInt("PRAGMA page_size"))
            try execute("PRAGMA max_page_count = \(max(1, cap / pageSize))")
        }
        let version = try scalarInt("PRAGMA user_version")
        if version != 0 && version != Int(SQLiteCacheStore.schemaVersion) {
            throw SQLiteCacheError(code: SQLiteCacheError.unknownSchema, message: "unknown schema version \(version)")
        }
        try execute("""
            CREATE TABLE IF NOT EXISTS entries (
                key TEXT PRIMARY KEY NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
                status INTEGER NOT NULL, reason TEXT, headers BLOB NOT NULL, vary BLOB NOT NULL,
                body BLOB, body_file TEXT, request_time REAL NOT NULL, response_time REAL NOT NULL,
                size INTEGER NOT NULL, last_used INTEGER NOT NULL)
            """)
        try execute("CREATE INDEX IF NOT EXISTS entries_by_use ON entries(last_used)")
        try execute("CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 1), size INTEGER NOT NULL, count INTEGER NOT NULL)")
        try execute("INSERT OR IGNORE INTO totals (id, size, count) VALUES (1, 0, 0)")
        try execute("CREATE TRIGGER IF NOT EXISTS entries_added AFTER INSERT ON entries BEGIN UPDATE totals SET size = size + NEW.size, count = count + 1 WHERE id = 1; END")
        try execute("CREATE TRIGGER IF NOT EXISTS entries_removed AFTER DELETE ON entries BEGIN UPDATE totals SET size = size - OLD.size, count = count - 1 WHERE id = 1; END")
        try execute("CREATE TRIGGER IF NOT EXISTS entries_changed AFTER UPDATE OF size ON entries BEGIN UPDATE totals SET size = size - OLD.size + NEW.size WHERE id = 1; END")
        try execute("PRAGMA user_version = \(SQLiteCacheStore.schemaVersion)")
        // A database that opens but cannot be read is damaged: find out now, not mid-request.
        _ = try scalarInt("SELECT count FROM totals WHERE id = 1")
    }

    // MARK: Operations

    /// The entry under `key`, and whether its least-recently-used time is over a minute old.
    mutating func get(_ key: String) throws -> (entry: CachedResponse, stale: Bool)? {
        let statement = try prepared("""
            SELECT method, url, status, reason, headers, vary, body, body_file, request_time, response_time, last_used
            FROM entries WHERE key = ?1
            """)
        bind(statement, 1, key)
        let step = try stepRow(statement)
        guard step else { return nil }
        defer { sqlite3_reset(statement) }
        let method = text(statement, 0) ?? "GET"
        let url = text(statement, 1) ?? ""
        let status = Int(sqlite3_column_int64(statement, 2))
        let reason = text(statement, 3)
        let headerBytes = blob(statement, 4)
        let varyBytes = blob(statement, 5)
        var body = blob(statement, 6)
        let bodyFile = text(statement, 7)
        let requestTime = Date(timeIntervalSince1970: sqlite3_column_double(statement, 8))
        let responseTime = Date(timeIntervalSince1970: sqlite3_column_double(statement, 9))
        let lastUsed = sqlite3_column_int64(statement, 10)
        sqlite3_reset(statement)

        guard let headers = try? HTTPFieldsCoding.decode(headerBytes) else {
            configuration.log("the stored header fields of \(key) are unreadable; treating it as a miss")
            return nil
        }
        if let bodyFile {
            guard let data = FileManager.default.contents(atPath: bodyDirectory + "/" + bodyFile) else {
                // Another process replaced the entry and removed its file: a lost race is a miss.
                return nil
            }
            body = data
        }
        let entry = CachedResponse(
            method: method, url: url, status: status, reasonPhrase: reason, headers: headers, body: body,
            requestTime: requestTime, responseTime: responseTime, varyValues: VaryCoding.decode(varyBytes)
        )
        return (entry, Self.now() - lastUsed > 60_000_000)
    }

    /// Marks `key` as used now (least-recently-used order).
    mutating func touch(_ key: String) throws {
        let statement = try prepared("UPDATE entries SET last_used = ?2 WHERE key = ?1")
        bind(statement, 1, key)
        sqlite3_bind_int64(statement, 2, Self.now())
        try stepDone(statement)
    }

    /// Stores every entry of `batch` in one transaction (a group commit). When another connection
    /// holds the write lock past the busy timeout, nothing is stored and nothing is thrown: a lost
    /// race is a miss.
    mutating func put(_ batch: [(entry: CachedResponse, key: String)]) throws {
        var newFiles: [String] = []
        var fileNames: [String?] = []
        do {
            for item in batch {
                if item.entry.body.count > configuration.bodyFileThreshold {
                    let name = try writeBodyFile(item.entry.body)
                    newFiles.append(name)
                    fileNames.append(name)
                } else {
                    fileNames.append(nil)
                }
            }
        } catch {
            for file in newFiles { removeBodyFile(file) }
            throw error
        }
        // The busy timeout waits for another connection's write lock; past it, two more tries.
        var begun = false
        for _ in 0..<3 where !begun {
            do {
                try execute("BEGIN IMMEDIATE")
                begun = true
            } catch let error as SQLiteCacheError where error.code == SQLITE_BUSY {
                continue
            }
        }
        guard begun else {
            for file in newFiles { removeBodyFile(file) }
            configuration.log("the cache is busy past the timeout; not storing \(batch.count) entries")
            return
        }
        var replacedFiles: [String] = []
        do {
            for (item, fileName) in zip(batch, fileNames) {
                replacedFiles += try insert(item.entry, for: item.key, fileName: fileName)
            }
            replacedFiles += try evict()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            for file in newFiles { removeBodyFile(file) }
            if let error = error as? SQLiteCacheError, error.code == SQLITE_BUSY {
                configuration.log("the cache is busy past the timeout; not storing \(batch.count) entries")
                return
            }
            throw error
        }
        for file in replacedFiles { removeBodyFile(file) }
    }

    /// Replaces the row of `key` (inside a transaction); the body file of the row it replaced.
    private mutating func insert(_ entry: CachedResponse, for key: String, fileName: String?) throws -> [String] {
        let remove = try prepared("DELETE FROM entries WHERE key = ?1 RETURNING body_file")
        bind(remove, 1, key)
        var replaced: [String] = []
        while try stepRow(remove) {
            if let file = text(remove, 0) { replaced.append(file) }
        }
        sqlite3_reset(remove)
        let insert = try prepared("""
            INSERT INTO entries (key, method, url, status, reason, headers, vary, body, body_file,
                                 request_time, response_time, size, last_used)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """)
        bind(insert, 1, key)
        bind(insert, 2, entry.method)
        bind(insert, 3, entry.url)
        sqlite3_bind_int64(insert, 4, Int64(entry.status))
        if let reason = entry.reasonPhrase { bind(insert, 5, reason) } else { sqlite3_bind_null(insert, 5) }
        bind(insert, 6, HTTPFieldsCoding.encode(entry.headers))
        bind(insert, 7, VaryCoding.encode(entry.varyValues))
        if fileName == nil { bind(insert, 8, entry.body) } else { sqlite3_bind_null(insert, 8) }
        if let fileName { bind(insert, 9, fileName) } else { sqlite3_bind_null(insert, 9) }
        sqlite3_bind_double(insert, 10, entry.requestTime.timeIntervalSince1970)
        sqlite3_bind_double(insert, 11, entry.responseTime.timeIntervalSince1970)
        sqlite3_bind_int64(insert, 12, Int64(entry.size))
        sqlite3_bind_int64(insert, 13, Self.now())
        try stepDone(insert)
        return replaced
    }

    /// Deletes least recently used entries until the total fits; the body files to remove.
    private mutating func evict() throws -> [String] {
        guard configuration.maximumSize > 0 else { return [] }
        var files: [String] = []
        while try scalarInt("SELECT size FROM totals WHERE id = 1") > configuration.maximumSize {
            let oldest = try prepared("SELECT key, body_file FROM entries ORDER BY last_used LIMIT 1")
            guard try stepRow(oldest), let key = text(oldest, 0) else { sqlite3_reset(oldest); break }
            if let file = text(oldest, 1) { files.append(file) }
            sqlite3_reset(oldest)
            let remove = try prepared("DELETE FROM entries WHERE key = ?1")
            bind(remove, 1, key)
            try stepDone(remove)
        }
        return files
    }

    mutating func delete(_ key: String) throws -> Bool {
        let files = try bodyFiles(where: "key = ?1", key)
        let remove = try prepared("DELETE FROM entries WHERE key = ?1")
        bind(remove, 1, key)
        try stepDone(remove)
        let removed = sqlite3_changes(db) > 0
        for file in files { removeBodyFile(file) }
        return removed
    }

    mutating func delete(prefix: String) throws -> Int {
        let condition = "substr(key, 1, length(?1)) = ?1"
        let files = try bodyFiles(where: condition, prefix)
        let remove = try prepared("DELETE FROM entries WHERE \(condition)")
        bind(remove, 1, prefix)
        try stepDone(remove)
        let count = Int(sqlite3_changes(db))
        for file in files { removeBodyFile(file) }
        return count
    }

    mutating func clear() throws {
        let files = try bodyFiles(where: "1", nil)
        try execute("DELETE FROM entries")
        for file in files { removeBodyFile(file) }
    }

    mutating func totalSize() throws -> Int { try scalarInt("SELECT size FROM totals WHERE id = 1") }

    mutating func entryCount() throws -> Int { try scalarInt("SELECT count FROM totals WHERE id = 1") }

    mutating func items() throws -> [CacheItem] {
        let statement = try prepared("SELECT key, size, response_time FROM entries ORDER BY last_used")
        defer { sqlite3_reset(statement) }
        var items: [CacheItem] = []
        while try stepRow(statement) {
            items.append(CacheItem(
                key: text(statement, 0) ?? "", size: Int(sqlite3_column_int64(statement, 1)),
                responseTime: Date(timeIntervalSince1970: sqlite3_column_double(statement, 2))
            ))
        }
        return items
    }

    // MARK: Body files

    private var bodyDirectory: String { path + ".bodies" }

    /// Writes `body` to a new file beside the database: a temporary name, then a rename.
    private func writeBodyFile(_ body: Data) throws -> String {
        let name = UUID().uuidString.lowercased()
        do {
            try PrivateFile.write(body, to: bodyDirectory + "/" + name, temporary: bodyDirectory + "/." + name + ".tmp")
        } catch {
            throw SQLiteCacheError(code: error.code == ENOSPC ? SQLITE_FULL : SQLITE_IOERR, message: "cannot write a body file: \(error)")
        }
        return name
    }

    /// Removes body files no entry refers to, left by a process killed between writing a file and
    /// committing its row (or a temporary file it never renamed). Only files older than an hour:
    /// a younger one may belong to another process's put in progress.
    mutating func removeOrphanedBodyFiles(olderThan age: TimeInterval = 3_600) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: bodyDirectory), !names.isEmpty,
              let referenced = try? Set(bodyFiles(where: "1", nil)) else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for name in names where !referenced.contains(name) {
            let file = bodyDirectory + "/" + name
            if let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
               modified < cutoff {
                unlink(file)
            }
        }
    }

    private func removeBodyFile(_ name: String) {
        unlink(bodyDirectory + "/" + name)
    }

    /// The body files of the entries matching `condition` (with `?1` bound to `argument`).
    private mutating func bodyFiles(where condition: String, _ argument: String?) throws -> [String] {
        let statement = try prepared("SELECT body_file FROM entries WHERE body_file IS NOT NULL AND (\(condition))")
        defer { sqlite3_reset(statement) }
        if let argument { bind(statement, 1, argument) }
        var files: [String] = []
        while try stepRow(statement) {
            if let file = text(statement, 0) { files.append(file) }
        }
        return files
    }

    // MARK: SQLite helpers

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    private mutating func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            return statement
        }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status) }
        statements[sql] = statement
        return statement
    }

    private mutating func execute(_ sql: String) throws {
        let status = sqlite3_exec(db, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status) }
    }

    private mutating func scalarInt(_ sql: String) throws -> Int {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        guard try stepRow(statement) else { return 0 }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Steps a query: true for a row, false when done.
    private func stepRow(_ statement: OpaquePointer) throws -> Bool {
        let status = sqlite3_step(statement)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        sqlite3_reset(statement)
        throw failure(status)
    }

    private func stepDone(_ statement: OpaquePointer) throws {
        let status = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw failure(status) }
    }

    private func failure(_ status: Int32) -> SQLiteCacheError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
        return SQLiteCacheError(code: status & 0xFF, message: message)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ value: String) {
        sqlite3_bind_text(statement, index, value, -1, Self.transient)
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Data) {
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), Self.transient)
        }
    }

    private func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }

    private func blob(_ statement: OpaquePointer, _ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: pointer, count: count)
    }
}
