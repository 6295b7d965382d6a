import CSQLite
import Foundation
import Sluice
import SluiceSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The cache's SQLite database: its schema, and the reads and writes ``SQLiteCacheStore`` makes,
/// over one ``SluiceSQLite/SQLiteConnection``. Large bodies live in files beside it
/// (`<path>.bodies/`).
///
/// It lives inside the store's lock (a `Locked`) and is used only through `withLock`.
struct CacheDatabase: ~Copyable, Sendable {
    private var connection: SQLiteConnection
    let path: String
    let configuration: SQLiteCacheStore.Configuration

    private init(path: String, configuration: SQLiteCacheStore.Configuration) throws(SQLiteError) {
        self.connection = try SQLiteConnection(path: path, busyTimeout: configuration.busyTimeout)
        self.path = path
        self.configuration = configuration
    }

    /// Opens (or creates) the database at `path`; a file that is not a usable cache database is
    /// moved aside and a new one made. Damage must be seen three times, 50 ms apart, before the
    /// file is moved: other processes may have it open, and a file another process is setting up
    /// right now must not be taken for a damaged one.
    static func open(path: String, configuration: SQLiteCacheStore.Configuration) throws -> CacheDatabase {
        for _ in 0..<2 {
            do {
                return try openOnce(path: path, configuration: configuration)
            } catch let error as SQLiteError where error.isCorruption {
                usleep(50_000)
            }
        }
        do {
            return try openOnce(path: path, configuration: configuration)
        } catch let error as SQLiteError where error.isCorruption {
            configuration.log("\(path) is not a usable cache database (\(error)); moving it aside and starting a new one")
            moveAside(path)
            return try openOnce(path: path, configuration: configuration)
        }
    }

    private static func openOnce(path: String, configuration: SQLiteCacheStore.Configuration) throws -> CacheDatabase {
        var database = try CacheDatabase(path: path, configuration: configuration)
        try database.prepareSchema()
        try? FileManager.default.createDirectory(
            atPath: path + ".bodies", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        database.removeOrphanedBodyFiles()
        return database
    }

    mutating func close() {
        connection.close()
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
        if let cap = configuration.maximumFileSize {
            let pageSize = max(512, try connection.scalarInt("PRAGMA page_size"))
            try connection.execute("PRAGMA max_page_count = \(max(1, cap / pageSize))")
        }
        let version = try connection.scalarInt("PRAGMA user_version")
        if version != 0 && version != Int(SQLiteCacheStore.schemaVersion) {
            throw SQLiteError(code: SQLiteError.unknownSchema, message: "unknown schema version \(version)")
        }
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS entries (
                key TEXT PRIMARY KEY NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
                status INTEGER NOT NULL, reason TEXT, headers BLOB NOT NULL, vary BLOB NOT NULL,
                body BLOB, body_file TEXT, request_time REAL NOT NULL, response_time REAL NOT NULL,
                size INTEGER NOT NULL, last_used INTEGER NOT NULL)
            """)
        try connection.execute("CREATE INDEX IF NOT EXISTS entries_by_use ON entries(last_used)")
        try connection.execute("CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 1), size INTEGER NOT NULL, count INTEGER NOT NULL)")
        try connection.execute("INSERT OR IGNORE INTO totals (id, size, count) VALUES (1, 0, 0)")
        try connection.execute(
            "CREATE TRIGGER IF NOT EXISTS entries_added AFTER INSERT ON entries BEGIN UPDATE totals SET size = size + NEW.size, count = count + 1 WHERE id = 1; END"
        )
        try connection.execute(
            "CREATE TRIGGER IF NOT EXISTS entries_removed AFTER DELETE ON entries BEGIN UPDATE totals SET size = size - OLD.size, count = count - 1 WHERE id = 1; END"
        )
        try connection.execute(
            "CREATE TRIGGER IF NOT EXISTS entries_changed AFTER UPDATE OF size ON entries BEGIN UPDATE totals SET size = size - OLD.size + NEW.size WHERE id = 1; END"
        )
        try connection.execute("PRAGMA user_version = \(SQLiteCacheStore.schemaVersion)")
        // A database that opens but cannot be read is damaged: find out now, not mid-request.
        _ = try connection.scalarInt("SELECT count FROM totals WHERE id = 1")
    }

    // MARK: Operations

    /// The entry under `key`, and whether its least-recently-used time is over a minute old.
    mutating func get(_ key: String) throws -> (entry: CachedResponse, stale: Bool)? {
        let statement = try connection.prepared(
            """
            SELECT method, url, status, reason, headers, vary, body, body_file, request_time, response_time, last_used
            FROM entries WHERE key = ?1
            """)
        connection.bind(statement, 1, key)
        let step = try connection.stepRow(statement)
        guard step else { return nil }
        defer { sqlite3_reset(statement) }
        let method = connection.text(statement, 0) ?? "GET"
        let url = connection.text(statement, 1) ?? ""
        let status = Int(sqlite3_column_int64(statement, 2))
        let reason = connection.text(statement, 3)
        let headerBytes = connection.blob(statement, 4)
        let varyBytes = connection.blob(statement, 5)
        var body = connection.blob(statement, 6)
        let bodyFile = connection.text(statement, 7)
        let requestTime = Date(timeIntervalSince1970: sqlite3_column_double(statement, 8))
        let responseTime = Date(timeIntervalSince1970: sqlite3_column_double(statement, 9))
        let lastUsed = sqlite3_column_int64(statement, 10)
        sqlite3_reset(statement)

        guard let headers = try? HTTPFields(stored: headerBytes) else {
            configuration.log("the stored header fields of \(key) are unreadable; treating it as a miss")
            return nil
        }
        if let bodyFile {
            guard Self.isBodyFileName(bodyFile) else {
                // Not a name this store writes: a damaged or planted row. Never read (or delete) it.
                configuration.log("the body file name stored for \(key) is not a plain file name; treating it as a miss")
                return nil
            }
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
        let statement = try connection.prepared("UPDATE entries SET last_used = ?2 WHERE key = ?1")
        connection.bind(statement, 1, key)
        sqlite3_bind_int64(statement, 2, Self.now())
        try connection.stepDone(statement)
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
        var tries = 0
        while !begun && tries < 3 {
            tries += 1
            do {
                try connection.execute("BEGIN IMMEDIATE")
                begun = true
            } catch {
                guard error.code == SQLITE_BUSY else { throw error }
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
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            for file in newFiles { removeBodyFile(file) }
            if let error = error as? SQLiteError, error.code == SQLITE_BUSY {
                configuration.log("the cache is busy past the timeout; not storing \(batch.count) entries")
                return
            }
            throw error
        }
        for file in replacedFiles { removeBodyFile(file) }
    }

    /// Replaces the row of `key` (inside a transaction); the body file of the row it replaced.
    private mutating func insert(_ entry: CachedResponse, for key: String, fileName: String?) throws -> [String] {
        let remove = try connection.prepared("DELETE FROM entries WHERE key = ?1 RETURNING body_file")
        connection.bind(remove, 1, key)
        var replaced: [String] = []
        while try connection.stepRow(remove) {
            if let file = connection.text(remove, 0) { replaced.append(file) }
        }
        sqlite3_reset(remove)
        let insert = try connection.prepared(
            """
            INSERT INTO entries (key, method, url, status, reason, headers, vary, body, body_file,
                                 request_time, response_time, size, last_used)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """)
        connection.bind(insert, 1, key)
        connection.bind(insert, 2, entry.method)
        connection.bind(insert, 3, entry.url)
        sqlite3_bind_int64(insert, 4, Int64(entry.status))
        if let reason = entry.reasonPhrase { connection.bind(insert, 5, reason) } else { sqlite3_bind_null(insert, 5) }
        connection.bind(insert, 6, Data(entry.headers.stored.utf8))
        connection.bind(insert, 7, VaryCoding.encode(entry.varyValues))
        if fileName == nil { connection.bind(insert, 8, entry.body) } else { sqlite3_bind_null(insert, 8) }
        if let fileName { connection.bind(insert, 9, fileName) } else { sqlite3_bind_null(insert, 9) }
        sqlite3_bind_double(insert, 10, entry.requestTime.timeIntervalSince1970)
        sqlite3_bind_double(insert, 11, entry.responseTime.timeIntervalSince1970)
        sqlite3_bind_int64(insert, 12, Int64(entry.size))
        sqlite3_bind_int64(insert, 13, Self.now())
        try connection.stepDone(insert)
        return replaced
    }

    /// Deletes least recently used entries until the total fits; the body files to remove.
    private mutating func evict() throws -> [String] {
        guard configuration.maximumSize > 0 else { return [] }
        var files: [String] = []
        while try connection.scalarInt("SELECT size FROM totals WHERE id = 1") > configuration.maximumSize {
            let oldest = try connection.prepared("SELECT key, body_file FROM entries ORDER BY last_used LIMIT 1")
            guard try connection.stepRow(oldest), let key = connection.text(oldest, 0) else { sqlite3_reset(oldest); break }
            if let file = connection.text(oldest, 1) { files.append(file) }
            sqlite3_reset(oldest)
            let remove = try connection.prepared("DELETE FROM entries WHERE key = ?1")
            connection.bind(remove, 1, key)
            try connection.stepDone(remove)
        }
        return files
    }

    mutating func delete(_ key: String) throws -> Bool {
        let files = try bodyFiles(where: "key = ?1", key)
        let remove = try connection.prepared("DELETE FROM entries WHERE key = ?1")
        connection.bind(remove, 1, key)
        try connection.stepDone(remove)
        let removed = connection.changes > 0
        for file in files { removeBodyFile(file) }
        return removed
    }

    mutating func delete(prefix: String) throws -> Int {
        let condition = "substr(key, 1, length(?1)) = ?1"
        let files = try bodyFiles(where: condition, prefix)
        let remove = try connection.prepared("DELETE FROM entries WHERE \(condition)")
        connection.bind(remove, 1, prefix)
        try connection.stepDone(remove)
        let count = connection.changes
        for file in files { removeBodyFile(file) }
        return count
    }

    mutating func clear() throws {
        let files = try bodyFiles(where: "1", nil)
        try connection.execute("DELETE FROM entries")
        for file in files { removeBodyFile(file) }
    }

    mutating func totalSize() throws -> Int { try connection.scalarInt("SELECT size FROM totals WHERE id = 1") }

    mutating func entryCount() throws -> Int { try connection.scalarInt("SELECT count FROM totals WHERE id = 1") }

    mutating func items() throws -> [CacheItem] {
        let statement = try connection.prepared("SELECT key, size, response_time FROM entries ORDER BY last_used")
        defer { sqlite3_reset(statement) }
        var items: [CacheItem] = []
        while try connection.stepRow(statement) {
            items.append(
                CacheItem(
                    key: connection.text(statement, 0) ?? "", size: Int(sqlite3_column_int64(statement, 1)),
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
            throw SQLiteError(code: error.code == ENOSPC ? SQLITE_FULL : SQLITE_IOERR, message: "cannot write a body file: \(error)")
        }
        return name
    }

    /// Removes body files no entry refers to, left by a process killed between writing a file and
    /// committing its row (or a temporary file it never renamed). Only files older than an hour:
    /// a younger one may belong to another process's put in progress.
    mutating func removeOrphanedBodyFiles(olderThan age: TimeInterval = 3_600) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: bodyDirectory), !names.isEmpty,
            let referenced = try? Set(bodyFiles(where: "1", nil))
        else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for name in names where !referenced.contains(name) {
            let file = bodyDirectory + "/" + name
            if let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
                modified < cutoff
            {
                unlink(file)
            }
        }
    }

    /// Whether `name` can be a body file this store wrote: a plain name inside its folder, with no
    /// `/`, no `..`, not empty and not hidden (temporary files start with a dot).
    static func isBodyFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\0") && name.utf8.count <= 255
    }

    private func removeBodyFile(_ name: String) {
        guard Self.isBodyFileName(name) else { return }
        unlink(bodyDirectory + "/" + name)
    }

    /// The body files of the entries matching `condition` (with `?1` bound to `argument`).
    private mutating func bodyFiles(where condition: String, _ argument: String?) throws -> [String] {
        let statement = try connection.prepared("SELECT body_file FROM entries WHERE body_file IS NOT NULL AND (\(condition))")
        defer { sqlite3_reset(statement) }
        if let argument { connection.bind(statement, 1, argument) }
        var files: [String] = []
        while try connection.stepRow(statement) {
            if let file = connection.text(statement, 0) { files.append(file) }
        }
        return files
    }

    // MARK: Clock

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }
}

extension SQLiteError {
    /// A schema version this code does not know (not an SQLite code).
    static let unknownSchema: Int32 = -1

    /// SQLITE_CORRUPT or SQLITE_NOTADB, or a schema this code does not know: the file is moved
    /// aside and a new cache made.
    var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == Self.unknownSchema }
}
