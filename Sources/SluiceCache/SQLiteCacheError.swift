import CSQLite

/// Why the SQLite cache store could not do something: SQLite's result code and message.
///
/// Only opening a store throws it to callers; the middleware treats every store error as a miss.
public struct SQLiteCacheError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String

    public var description: String { "SQLite error \(code): \(message)" }

    /// SQLITE_CORRUPT or SQLITE_NOTADB, or a schema this code does not know.
    var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == Self.unknownSchema }

    static let unknownSchema: Int32 = -1
}
