import Foundation

/// The text of a `/proc` or `/sys` file, read with read(2) to its end. Their size shows as 0, and
/// Foundation's `String(contentsOfFile:)` (Swift 6.3) leaks the 4 KB buffer it reads such a file
/// into (LeakSanitizer found it under `make test-asan` with leak checks): once per read, so once
/// per network change in the reachability monitor and per sample in the soak run. `package`: for
/// Sluice's own targets.
///
/// ```swift
/// let routes = SystemFile.text("/proc/net/route")
/// SystemFile.write(Array("sluice: a warning\n".utf8), to: STDERR_FILENO)
/// ```
@usableFromInline package enum SystemFile {
    package static func text(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[0..<count]
        }
    }

    /// Writes all of `bytes` to `fd` with write(2), again after an interruption; `false` when the
    /// descriptor refuses them (a pipe whose reader has gone, a full disk, a non-blocking
    /// descriptor that is full), with `errno` saying why. Never a trap, never the end of the
    /// process: Foundation's `FileHandle.write(_:)` traps on any write error (it is `try!` inside),
    /// and a pipe whose reader has gone raises SIGPIPE, blocked here (``BrokenPipe``).
    @discardableResult
    package static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        BrokenPipe.withoutSignal {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Writes `line` and a line break to standard error, as ``write(_:to:)`` does.
    /// (`@usableFromInline`: the cache stores' public initializers name it as their default log.)
    @usableFromInline package static func warn(_ line: String) {
        write(Array((line + "\n").utf8), to: STDERR_FILENO)
    }
}
