import Foundation
import Sluice

/// The files of an unfinished download, next to its destination:
/// - `NAME.sluice-partial`: the bytes so far;
/// - `NAME.sluice-partial.json`: the URL, the validators (`ETag`, `Last-Modified`), the total, and
///   what the segment file holds;
/// - `NAME.sluice-partial.next`: what a resumed request is receiving, joined to the partial file
///   only once it is known to continue it (a 206 starting where the partial ends) or to replace
///   it (a 200). So a crash, a pause, a 416 or an error page never leaves wrong bytes in the
///   partial file.
struct PartialDownload {
    struct Record: Codable, Equatable {
        var url: String
        var etag: String?
        var lastModified: String?
        var totalBytes: Int64?
        /// The segment file continues the partial file from this offset.
        var segmentStart: Int64?
        /// The segment file is a whole new copy (a 200 to a range request).
        var segmentReplaces: Bool?

        /// The `If-Range` value: a strong ETag, else `Last-Modified`, else nothing (no resume).
        var ifRange: String? {
            if let etag, !etag.hasPrefix("W/") { return etag }
            return lastModified
        }
    }

    let destination: URL
    var partial: URL { destination.appendingPathExtension("sluice-partial") }
    var segment: URL { destination.appendingPathExtension("sluice-partial.next") }
    var recordFile: URL { destination.appendingPathExtension("sluice-partial.json") }

    var record: Record? {
        guard let data = try? Data(contentsOf: recordFile) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    func save(_ record: Record) throws(SluiceError) {
        // 0600: the state holds the URL, which may carry a token in its query.
        do {
            try PrivateFile.write(try JSONEncoder().encode(record), to: recordFile.path)
        } catch let error as PrivateFile.WriteError {
            throw SluiceError(.writeFailed, "cannot save the download's state to \(recordFile.path): \(error.reason)", underlying: error)
        } catch {
            throw SluiceError(.writeFailed, "cannot encode the download's state: \(error)", underlying: error)
        }
    }

    /// Whether `url` is a regular file, not following a link.
    static func isRegularFile(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Whether anything, a link included, is at `url`.
    static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    static func size(_ url: URL) -> Int64? {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Where to continue `url` from: the partial file's size and the `If-Range` validator, or
    /// `nil` (after removing anything stale) when there is nothing that can be resumed.
    /// A partial file that is not a regular file of its own (a symbolic link, a folder, a FIFO
    /// someone planted) is never continued: everything is dropped and the download starts over.
    func resumePoint(for url: URL) -> (offset: Int64, ifRange: String)? {
        guard Self.isRegularFile(partial), Self.isRegularFile(segment) || !Self.exists(segment),
            let size = Self.size(partial), size > 0, let record, record.url == url.absoluteString, let ifRange = record.ifRange
        else {
            discardAll()
            return nil
        }
        return (size, ifRange)
    }

    /// Joins or drops the segment file, as the record says it may be used.
    func settleSegment() throws(SluiceError) {
        guard FileManager.default.fileExists(atPath: segment.path) else { return }
        guard var record else { return discard(segment) }
        if record.segmentReplaces == true {
            _ = rename(segment.path, partial.path)
        } else if let start = record.segmentStart, Self.size(partial) == start {
            try append(segment, to: partial)
        }
        discard(segment)
        record.segmentStart = nil
        record.segmentReplaces = nil
        try save(record)
    }

    func discard(_ url: URL) {
        unlink(url.path)
    }

    func discardAll() {
        for url in [partial, segment, recordFile] { discard(url) }
    }

    /// Appends `source` to `target` in 1 MiB pieces.
    private func append(_ source: URL, to target: URL) throws(SluiceError) {
        let input = open(source.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        let output = open(target.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        defer {
            if input >= 0 { close(input) }
            if output >= 0 { close(output) }
        }
        guard input >= 0, output >= 0 else {
            throw SluiceError(.writeFailed, "cannot join \(source.path) to \(target.path): \(String(cString: strerror(errno)))")
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw SluiceError(.writeFailed, "cannot read \(source.path): \(String(cString: strerror(errno)))") }
            if count == 0 { return }
            var written = 0
            while written < count {
                // The target may be a FIFO whose reader has gone: EPIPE, never SIGPIPE.
                let result = BrokenPipe.withoutSignal { buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) } }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    throw SluiceError(.writeFailed, "cannot write \(target.path): \(String(cString: strerror(errno)))")
                }
                written += result
            }
        }
    }
}
