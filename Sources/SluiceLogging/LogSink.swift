import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// Where ``LoggingMiddleware`` writes: standard error, a file, or a closure. Each record arrives
/// whole (one call may span several lines), so lines from concurrent calls never interleave.
///
/// ```swift
/// import Foundation
/// import SluiceLogging
///
/// LoggingMiddleware(level: .basic, sink: .standardError)
/// LoggingMiddleware(level: .body, sink: try .file(URL(fileURLWithPath: "/tmp/http.log")))
/// LoggingMiddleware(level: .basic, sink: .closure { record in print(record) })
/// ```
public struct LogSink: Sendable {
    /// Receives one record, without a trailing newline.
    public let write: @Sendable (String) -> Void
    /// Whether the text format may use colours.
    public let isTerminal: Bool
    /// For a sink that takes each record's fields beside its text (a swift-log `Logger`, through
    /// SluiceSwiftLog): then ``write`` is not called.
    package let entries: LogEntrySink?

    /// A sink that hands each record to `write`; `isTerminal` lets the text use colours.
    public init(isTerminal: Bool = false, write: @escaping @Sendable (String) -> Void) {
        self.isTerminal = isTerminal
        self.write = write
        self.entries = nil
    }

    /// A sink that takes each record as a ``LogEntry``.
    package init(entries: LogEntrySink) {
        self.isTerminal = false
        self.write = { _ in }
        self.entries = entries
    }

    /// Standard error, coloured when it is a terminal.
    public static let standardError = descriptor(STDERR_FILENO)

    /// Drops every record (for measuring the middleware's own cost).
    public static let null = LogSink { _ in }

    /// Any closure: a `Logger`, an in-app console, a test.
    public static func closure(isTerminal: Bool = false, _ write: @escaping @Sendable (String) -> Void) -> LogSink {
        LogSink(isTerminal: isTerminal, write: write)
    }

    /// Appends to `url`, creating it (mode 0600: logs can hold personal data) when missing.
    ///
    /// - Throws: `SluiceError` `.writeFailed` naming the path and the system's reason.
    public static func file(_ url: URL) throws -> LogSink {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SluiceError(.writeFailed, "cannot open log file \(url.path): \(String(cString: strerror(errno)))")
        }
        let file = FileDescriptorBox(fd)
        return LogSink(isTerminal: false) { record in file.append(record) }
    }

    /// A descriptor, coloured when it is a terminal.
    public static func descriptor(_ fd: Int32) -> LogSink {
        let file = FileDescriptorBox(fd, owned: false)
        return LogSink(isTerminal: isatty(fd) == 1) { record in file.append(record) }
    }
}

/// One descriptor written by whole records under a lock, so concurrent calls' records never mix.
/// Closed when the last sink holding it goes away (when it owns the descriptor).
final class FileDescriptorBox: Sendable {
    private let fd: Locked<Int32>
    private let owned: Bool

    init(_ fd: Int32, owned: Bool = true) {
        self.fd = Locked(fd)
        self.owned = owned
    }

    deinit {
        if owned { fd.withLock { _ = close($0) } }
    }

    func append(_ record: String) {
        var bytes = Array(record.utf8)
        bytes.append(0x0A)
        fd.withLock { fd in _ = SystemFile.write(bytes, to: fd) }  // a full disk loses log lines, never the call
    }
}
