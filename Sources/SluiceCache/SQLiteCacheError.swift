import SluiceSQLite

/// Why the SQLite cache store could not do something: SQLite's result code and message.
///
/// Only opening a store throws it to callers; the middleware treats every store error as a miss.
public struct SQLiteCacheError: Error, CustomStringConvertible, Sendable {
    /// SQLite's result code.
    public let code: Int32
    /// What went wrong, with SQLite's reason.
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: SQLiteError) {
        self.init(code: error.code, message: error.message)
    }
}
