import Foundation

/// Files only their owner may read (mode 0600), written whole and atomically: a temporary file
/// beside the target, created with that mode, then renamed over it. For the files Sluice's modules
/// write that can hold secrets: cache bodies, HAR recordings, download state. `package`: shared by
/// the modules, not part of the API.
///
/// ```swift
/// try PrivateFile.write(Data("{}".utf8), to: "/var/cache/app/state.json")
/// ```
package enum PrivateFile {
    /// Why a write failed: the file and the system's reason.
    package struct WriteError: Error, CustomStringConvertible {
        package let path: String
        package let reason: String
        /// The `errno` of the failure (`ENOSPC` for a full disk).
        package let code: Int32
        package var description: String { "cannot write \(path): \(reason)" }
    }

    /// Writes `data` to `path` with mode 0600: to `temporary` (default: a hidden name beside
    /// `path`), then a rename, so readers see the old file or the whole new one. The temporary file
    /// is removed when anything fails.
    package static func write(_ data: Data, to path: String, temporary: String? = nil) throws(WriteError) {
        let temporary = temporary ?? Self.temporaryName(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(temporary) }
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = Foundation.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        let writeError = written ? nil : failure(temporary)
        close(fd)
        if let writeError {
            unlink(temporary)
            throw writeError
        }
        guard rename(temporary, path) == 0 else {
            let renameError = failure(path)
            unlink(temporary)
            throw renameError
        }
    }

    private static func temporaryName(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp").path
    }

    private static func failure(_ path: String) -> WriteError {
        let code = errno
        return WriteError(path: path, reason: String(cString: strerror(code)), code: code)
    }
}
