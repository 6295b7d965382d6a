import CSQLite

/// What SQLite said went wrong: its primary result code and message.
///
/// ```swift
/// do { _ = try SQLiteConnection(path: "/etc/passwd/db.sqlite", busyTimeout: .seconds(1)) }
/// catch { print(error) }   // SQLite error 14: cannot open or create /etc/passwd/db.sqlite: Not a directory
/// ```
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    package let code: Int32
    package let message: String

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "SQLite error \(code): \(message)" }

    /// Another connection held the lock past the busy timeout.
    package var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The disk (or the file's size cap) is full.
    package var isFull: Bool { code == SQLITE_FULL }
}
