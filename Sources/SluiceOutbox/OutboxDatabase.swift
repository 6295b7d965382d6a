import CSQLite
import Foundation
import Sluice
import SluiceSQLite

/// The outbox's SQLite table: one row per stored request, in arrival order, over one
/// ``SluiceSQLite/SQLiteConnection`` (WAL). Every insert is its own committed transaction, so a
/// process killed after `insert` returns keeps the row. SQLite's errors become `.writeFailed`
/// errors that say what the outbox was doing.
///
/// It lives inside the outbox's lock and is used only through `withLock`.
struct OutboxDatabase: Sendable {
    struct Entry {
        let id: Int64
        let key: String
        let request: HTTPRequest
        let created: Double
        let attempts: Int
    }

    private let connection: SQLiteConnection

    /// - Throws: `.writeFailed` naming the path and SQLite's reason when it cannot be opened.
    init(path: String) throws(SluiceError) {
        do {
            connection = try SQLiteConnection(path: path, busyTimeout: .seconds(5))
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE,
                    method TEXT NOT NULL, url TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL,
                    created REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0)
                """)
        } catch {
            throw SluiceError(.writeFailed, "cannot open the outbox at \(path): \(error)", underlying: error)
        }
    }

    /// `body` on the connection; an SQLite error becomes `.writeFailed` naming `what`.
    private func run<T>(_ what: @autoclosure () -> String, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(SluiceError) -> T {
        do {
            return try body(connection)
        } catch {
            throw SluiceError(.writeFailed, "the outbox database failed at \(what()): \(error)", underlying: error)
        }
    }

    func insert(key: String, request: HTTPRequest, body: Data, created: Double) throws(SluiceError) {
        try run("storing \(key)") { connection throws(SQLiteError) in
            let statement = try connection.prepared(
                "INSERT OR IGNORE INTO outbox (key, method, url, headers, body, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            )
            connection.bind(statement, 1, key)
            connection.bind(statement, 2, request.method.rawValue)
            connection.bind(statement, 3, request.url.absoluteString)
            connection.bind(statement, 4, request.headers.stored)
            connection.bind(statement, 5, body)
            connection.bind(statement, 6, created)
            try connection.stepDone(statement)
        }
    }

    func count() throws(SluiceError) -> Int {
        try run("counting") { connection throws(SQLiteError) in try connection.scalarInt("SELECT count(*) FROM outbox") }
    }

    /// The oldest entry; a row whose method or URL cannot be read back is deleted and skipped.
    func oldest() throws(SluiceError) -> Entry? {
        while true {
            let row = try run("reading the oldest entry") { connection throws(SQLiteError) -> (Entry?, Int64?)? in
                let statement = try connection.prepared(
                    "SELECT id, key, method, url, headers, body, created, attempts FROM outbox ORDER BY id LIMIT 1"
                )
                defer { sqlite3_reset(statement) }
                guard try connection.stepRow(statement) else { return nil }
                let id = connection.int64(statement, 0)
                guard let url = URL(string: connection.text(statement, 3) ?? ""),
                    let method = HTTPMethod(rawValue: connection.text(statement, 2) ?? "")
                else { return (nil, id) }
                var request = HTTPRequest(method: method, url: url)
                request.headers = (try? HTTPFields(stored: connection.text(statement, 4) ?? "")) ?? HTTPFields()
                let body = connection.blob(statement, 5)
                if !body.isEmpty { request.body = .bytes(body) }
                let entry = Entry(
                    id: id, key: connection.text(statement, 1) ?? "", request: request, created: connection.double(statement, 6),
                    attempts: Int(connection.int64(statement, 7))
                )
                return (entry, nil)
            }
            guard let row else { return nil }
            if let entry = row.0 { return entry }
            if let unreadable = row.1 { try delete(unreadable) }
        }
    }

    func countAttempt(_ id: Int64) throws(SluiceError) {
        try change("UPDATE outbox SET attempts = attempts + 1 WHERE id = ?1", id)
    }

    func delete(_ id: Int64) throws(SluiceError) {
        try change("DELETE FROM outbox WHERE id = ?1", id)
    }

    private func change(_ sql: String, _ id: Int64) throws(SluiceError) {
        try run(sql) { connection throws(SQLiteError) in
            let statement = try connection.prepared(sql)
            connection.bind(statement, 1, id)
            try connection.stepDone(statement)
        }
    }
}
