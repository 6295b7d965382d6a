import Foundation

/// The text of a `/proc` or `/sys` file, read with read(2) to its end. Their size shows as 0, and
/// Foundation's `String(contentsOfFile:)` (Swift 6.3) leaks the 4 KB buffer it reads such a file
/// into (LeakSanitizer found it under `make test-asan` with leak checks): once per read, so once
/// per network change in the reachability monitor and per sample in the soak run. `package`: for
/// Sluice's own targets.
///
/// ```swift
/// let routes = SystemFile.text("/proc/net/route")
/// ```
package enum SystemFile {
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
}
