import CSQLite
import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite connection and its prepared statements, as Sluice's SQLite files use it (the cache's
/// SQLite store and the outbox): the file created with mode 0600 before SQLite opens it (SQLite
/// gives its `-wal` and `-shm` files the same mode), WAL with `synchronous=NORMAL`, a busy timeout,
/// statements prepared once and reused, and parameters always bound, never spliced into SQL.
/// `package` access: it ships inside those modules, not as API.
///
/// `@unchecked Sendable`: it is opened with `SQLITE_OPEN_NOMUTEX`, so its owner keeps it inside a
/// `Locked` and reaches it only through `withLock`, one thread at a time; its pointers never leave
/// the lock.
///
/// ```swift
/// let connection = try SQLiteConnection(path: path, busyTimeout: .seconds(5))
/// try connection.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
/// let insert = try connection.prepared("INSERT INTO notes (text) VALUES (?1)")
/// connection.bind(insert, 1, "hello")
/// try connection.stepDone(insert)
/// ```
package final class SQLiteConnection: @unchecked Sendable {
    package let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (or creates) the database at `path`, and the folders it is in that do not exist yet
    /// (mode 0700: a cache or an outbox holds answers and requests that are its owner's alone).
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CANTOPEN` and the system's reason when the file or a
    ///   folder for it cannot be created, or SQLite's code when it is not a database (`SQLITE_NOTADB`) or is damaged.
    package init(path: String, busyTimeout: Duration) throws(SQLiteError) {
        self.path = path
        // Nobody can plant a link for the store to write through: the database, its WAL and its
        // shared memory must be files of their own, and nothing is created through a link.
        for suffix in ["", "-wal", "-shm"] {
            var status = stat()
            if lstat(path + suffix, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
                throw SQLiteError(code: SQLITE_CANTOPEN, message: "\(path + suffix) is a symbolic link; a database is never opened through one")
            }
        }
        try Self.createFolder(of: path)
        // A new database is created 0600 first (SQLite gives its -wal and -shm the same mode). An
        // existing one is left alone: closing a descriptor of our own on a file that another
        // connection in this process has open would drop that connection's POSIX locks (they
        // belong to the process), and a process that loses its locks corrupts a shared database.
        var existing = stat()
        if lstat(path, &existing) != 0 {
            let fd = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 || errno == EEXIST else {
                throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot open or create \(path): \(String(cString: strerror(errno)))")
            }
            if fd >= 0 { Glibc.close(fd) }
        }
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: status, message: message)
        }
        db = handle
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeout.wholeMilliseconds))
        // Switching to WAL needs a lock that SQLite may refuse at once, without waiting, while
        // another process is opening the same new file: try again for up to the busy timeout.
        let deadline = ContinuousClock.Instant.after(busyTimeout)
        while true {
            do {
                try execute("PRAGMA journal_mode=WAL")
                break
            } catch  where error.isBusy && ContinuousClock.now < deadline {
                usleep(20_000)
            }
        }
        try execute("PRAGMA synchronous=NORMAL")
    }

    /// Makes each missing folder on the way to `path`, 0700, outermost first.
    private static func createFolder(of path: String) throws(SQLiteError) {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var folder = ""
        for (index, component) in components.enumerated() {
            folder += (index == 0 ? "" : "/") + component
            guard !component.isEmpty, component != ".", component != ".." else { continue }
            var status = stat()
            if stat(folder, &status) == 0 { continue }
            if mkdir(folder, 0o700) != 0, errno != EEXIST {
                throw SQLiteError(
                    code: SQLITE_CANTOPEN, message: "cannot create the folder \(folder) for \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        if let db { sqlite3_close_v2(db) }
    }

    /// Finalizes every statement and closes the connection; nothing works on it afterwards.
    package func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    // MARK: Statements

    /// Runs `sql`, which binds no parameters (schema and pragmas).
    package func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(db, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status) }
    }

    /// The statement for `sql`, prepared on first use and kept; reset, with its bindings cleared.
    package func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
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

    /// The first column of the first row of `sql` as an integer; 0 when there is no row.
    package func scalarInt(_ sql: String) throws(SQLiteError) -> Int {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        guard try stepRow(statement) else { return 0 }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Steps a query: true for a row, false when done.
    package func stepRow(_ statement: OpaquePointer) throws(SQLiteError) -> Bool {
        let status = sqlite3_step(statement)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        sqlite3_reset(statement)
        throw failure(status)
    }

    /// Steps a statement to its end (an insert, update or delete), then resets it.
    package func stepDone(_ statement: OpaquePointer) throws(SQLiteError) {
        let status = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw failure(status) }
    }

    /// Rows changed by the last insert, update or delete.
    package var changes: Int { Int(sqlite3_changes(db)) }

    /// The error for `status`, with the connection's message for it.
    package func failure(_ status: Int32) -> SQLiteError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
        return SQLiteError(code: status & 0xFF, message: message)
    }

    // MARK: Parameters and columns

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    package func bind(_ statement: OpaquePointer, _ index: Int32, _ value: String?) {
        if let value { sqlite3_bind_text(statement, index, value, -1, Self.transient) } else { sqlite3_bind_null(statement, index) }
    }

    package func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Data?) {
        guard let value else { sqlite3_bind_null(statement, index); return }
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), Self.transient)
        }
    }

    package func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(statement, index, value)
    }

    package func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Double) {
        sqlite3_bind_double(statement, index, value)
    }

    package func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }

    package func blob(_ statement: OpaquePointer, _ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    package func int64(_ statement: OpaquePointer, _ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    package func double(_ statement: OpaquePointer, _ column: Int32) -> Double {
        sqlite3_column_double(statement, column)
    }
}
