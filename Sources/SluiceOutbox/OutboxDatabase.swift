import CSQLite
import Foundation
import Sluice

/// The outbox's SQLite table: one row per stored request, in arrival order. WAL; every insert is
/// its own committed transaction, so a process killed after `insert` returns keeps the row.
///
/// `@unchecked Sendable`: it lives inside the outbox's lock and is used only through `withLock`.
struct OutboxDatabase: ~Copyable, @unchecked Sendable {
    struct Entry {
        let id: Int64
        let key: String
        let request: HTTPRequest
        let created: Double
        let attempts: Int
    }

    private var db: OpaquePointer?

    init(path: String) throws(SluiceError) {
        var handle: OpaquePointer?
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let handle else {
            sqlite3_close_v2(handle)
            throw SluiceError(.writeFailed, "cannot open the outbox at \(path)")
        }
        db = handle
        sqlite3_busy_timeout(handle, 5_000)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute("""
            CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE,
                method TEXT NOT NULL, url TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL,
                created REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0)
            """)
    }

    deinit { sqlite3_close_v2(db) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func execute(_ sql: String) throws(SluiceError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure("\(sql.prefix(40))…") }
    }

    private func failure(_ what: String) -> SluiceError {
        SluiceError(.writeFailed, "the outbox database failed at \(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    private func prepare(_ sql: String) throws(SluiceError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure(sql) }
        return statement
    }

    func insert(key: String, method: String, url: String, headers: String, body: Data, created: Double) throws(SluiceError) {
        let statement = try prepare("INSERT OR IGNORE INTO outbox (key, method, url, headers, body, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, key, -1, Self.transient)
        sqlite3_bind_text(statement, 2, method, -1, Self.transient)
        sqlite3_bind_text(statement, 3, url, -1, Self.transient)
        sqlite3_bind_text(statement, 4, headers, -1, Self.transient)
        _ = body.withUnsafeBytes { sqlite3_bind_blob(statement, 5, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), Self.transient) }
        sqlite3_bind_double(statement, 6, created)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure("storing \(key)") }
    }

    func count() throws(SluiceError) -> Int {
        let statement = try prepare("SELECT count(*) FROM outbox")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw failure("counting") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    func oldest() throws(SluiceError) -> Entry? {
        let statement = try prepare("SELECT id, key, method, url, headers, body, created, attempts FROM outbox ORDER BY id LIMIT 1")
        defer { sqlite3_finalize(statement) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_ROW else {
            if status == SQLITE_DONE { return nil }
            throw failure("reading the oldest entry")
        }
        func text(_ column: Int32) -> String { sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "" }
        let id = sqlite3_column_int64(statement, 0)
        guard let url = URL(string: text(3)), let method = HTTPMethod(rawValue: text(2)) else {
            try delete(id)
            return try oldest()
        }
        var request = HTTPRequest(method: method, url: url)
        request.headers = (try? HTTPFields(parsing: Array(text(4).utf8))) ?? HTTPFields()
        let count = Int(sqlite3_column_bytes(statement, 5))
        if count > 0, let bytes = sqlite3_column_blob(statement, 5) { request.body = .bytes(Data(bytes: bytes, count: count)) }
        return Entry(id: id, key: text(1), request: request, created: sqlite3_column_double(statement, 6),
                     attempts: Int(sqlite3_column_int64(statement, 7)))
    }

    func countAttempt(_ id: Int64) throws(SluiceError) {
        try run("UPDATE outbox SET attempts = attempts + 1 WHERE id = ?1", id)
    }

    func delete(_ id: Int64) throws(SluiceError) {
        try run("DELETE FROM outbox WHERE id = ?1", id)
    }

    private func run(_ sql: String, _ id: Int64) throws(SluiceError) {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, id)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw failure(sql) }
    }
}
