import CSQLite
import Foundation
import Sluice
import SluiceSQLite

/// The outbox's SQLite tables, over one ``SluiceSQLite/SQLiteConnection`` (WAL): `outbox`, one row
/// per stored request in arrival order, and `dead_letters`, rows that can never be sent (damaged,
/// or refused by the server) with the reason. Every insert is its own committed transaction, so a
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
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS dead_letters (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL,
                    method TEXT NOT NULL, url TEXT NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL,
                    created REAL NOT NULL, attempts INTEGER NOT NULL, reason TEXT NOT NULL, moved REAL NOT NULL)
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

    /// The oldest entry that can be sent. A row whose method, URL or header fields cannot be read
    /// back is moved to `dead_letters` with the reason (its key and reason are added to
    /// `deadLettered`), never sent without them. A loop, however many damaged rows there are.
    func oldest(after skipped: Int64 = 0, deadLettered: inout [(key: String, reason: String)]) throws(SluiceError) -> Entry? {
        while true {
            let row = try run("reading the oldest entry") { connection throws(SQLiteError) -> Result<Entry, Damage>? in
                let statement = try connection.prepared(
                    "SELECT id, key, method, url, headers, body, created, attempts FROM outbox WHERE id > ? ORDER BY id LIMIT 1"
                )
                defer { sqlite3_reset(statement) }
                connection.bind(statement, 1, skipped)
                guard try connection.stepRow(statement) else { return nil }
                let id = connection.int64(statement, 0)
                let key = connection.text(statement, 1) ?? ""
                let methodText = connection.text(statement, 2) ?? "", urlText = connection.text(statement, 3) ?? ""
                guard let method = HTTPMethod(rawValue: methodText) else {
                    return .failure(Damage(id: id, key: key, reason: "the stored method \(String(reflecting: methodText)) is not a method"))
                }
                guard let url = URL(string: urlText), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                    url.host?.isEmpty == false
                else {
                    return .failure(Damage(id: id, key: key, reason: "the stored URL is not an http or https URL"))
                }
                let headers: HTTPFields
                switch Result(catching: { () throws(SluiceError) -> HTTPFields in try HTTPFields(stored: connection.text(statement, 4) ?? "") }) {
                case .success(let fields): headers = fields
                case .failure(let error):
                    return .failure(Damage(id: id, key: key, reason: "the stored header fields are damaged: \(error.message)"))
                }
                var request = HTTPRequest(method: method, url: url, headers: headers)
                let body = connection.blob(statement, 5)
                if !body.isEmpty { request.body = .bytes(body) }
                let entry = Entry(
                    id: id, key: key, request: request, created: connection.double(statement, 6),
                    attempts: Int(connection.int64(statement, 7))
                )
                return .success(entry)
            }
            switch row {
            case nil: return nil
            case .success(let entry): return entry
            case .failure(let damage):
                try moveToDeadLetters(damage.id, reason: damage.reason)
                deadLettered.append((damage.key, damage.reason))
            }
        }
    }

    /// A row that cannot be sent, and why.
    struct Damage: Error {
        let id: Int64
        let key: String
        let reason: String
    }

    /// Moves row `id` to `dead_letters` with `reason`, in one transaction.
    func moveToDeadLetters(_ id: Int64, reason: String) throws(SluiceError) {
        try run("moving entry \(id) to the dead letters") { connection throws(SQLiteError) in
            try connection.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                let copy = try connection.prepared(
                    """
                    INSERT INTO dead_letters (key, method, url, headers, body, created, attempts, reason, moved)
                    SELECT key, method, url, headers, body, created, attempts, ?2, ?3 FROM outbox WHERE id = ?1
                    """)
                connection.bind(copy, 1, id)
                connection.bind(copy, 2, reason)
                connection.bind(copy, 3, Date().timeIntervalSince1970)
                try connection.stepDone(copy)
                let remove = try connection.prepared("DELETE FROM outbox WHERE id = ?1")
                connection.bind(remove, 1, id)
                try connection.stepDone(remove)
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The dead letters, oldest first.
    func deadLetters() throws(SluiceError) -> [(key: String, reason: String, moved: Double)] {
        try run("reading the dead letters") { connection throws(SQLiteError) in
            let statement = try connection.prepared("SELECT key, reason, moved FROM dead_letters ORDER BY id")
            defer { sqlite3_reset(statement) }
            var letters: [(key: String, reason: String, moved: Double)] = []
            while try connection.stepRow(statement) {
                letters.append((connection.text(statement, 0) ?? "", connection.text(statement, 1) ?? "", connection.double(statement, 2)))
            }
            return letters
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
