import Foundation
import Sluice

/// A file download that can be paused and resumed, here or in the next process.
///
/// The body goes to `NAME.sluice-partial` next to the destination and is moved into place
/// atomically when it is complete (and its SHA-256, when given, matches). A paused or broken
/// download keeps its bytes and the server's validators; the next run asks for the rest with
/// `Range` and `If-Range`. A `206` continues the file, a `200` (the file changed, or the server
/// ignores ranges) starts it cleanly again, and a `416` for a file that is already whole finishes
/// it. A connection that breaks mid-body is resumed automatically (``Configuration/resumeAttempts``).
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceDownload
///
/// let download = Download(HTTPRequest(url: isoURL), to: URL(fileURLWithPath: "/tmp/debian.iso"), using: client,
///                         configuration: .init(expectedSHA256: "9f2c…", progress: { print($0.fractionCompleted ?? 0) }))
/// Task { try await Task.sleep(for: .seconds(5)); download.pause() }
/// do { _ = try await download.run() } catch is CancellationError { print("paused") }
/// let result = try await download.run()      // continues where it stopped
/// ```
///
/// Cancelling the task that runs it pauses too (the bytes are kept); ``cancel()`` drops them.
public final class Download: Sendable {
    /// What a download checks and how it resumes.
    public struct Configuration: Sendable {
        /// The file's SHA-256 in hex (any case); checked before the file is moved into place.
        public var expectedSHA256: String?
        /// How many times a broken connection or a timeout is resumed automatically.
        public var resumeAttempts: Int
        /// Called with each progress report, on the transport's thread: keep it short.
        public var progress: (@Sendable (DownloadProgress) -> Void)?
        /// The finished file's permission bits; `nil` for what the process's umask gives a new
        /// file (`0o644` under the usual `022`). The partial file is `0o600` until then.
        public var fileMode: mode_t?

        /// Settings with each value given, or its default.
        public init(
            expectedSHA256: String? = nil, resumeAttempts: Int = 3, progress: (@Sendable (DownloadProgress) -> Void)? = nil,
            fileMode: mode_t? = nil
        ) {
            self.expectedSHA256 = expectedSHA256
            self.resumeAttempts = resumeAttempts
            self.progress = progress
            self.fileMode = fileMode
        }

        /// No checksum, three automatic resumes, no progress reports.
        public static let `default` = Configuration()
    }

    private enum Stop { case pause, cancel }

    /// What is downloaded.
    public let request: HTTPRequest
    /// Where the file appears when it is complete.
    public let destination: URL
    /// The client the download goes through.
    public let client: Client
    /// How it behaves.
    public let configuration: Configuration
    private let state = Locked<(task: Task<DownloadResult, any Error>?, stop: Stop?)>((nil, nil))

    /// A download of `request` to `destination` through `client`.
    public init(_ request: HTTPRequest, to destination: URL, using client: Client, configuration: Configuration = .default) {
        self.request = request
        self.destination = destination
        self.client = client
        self.configuration = configuration
    }

    /// Downloads the file, continuing from an earlier run's bytes when it can.
    ///
    /// - Throws: `CancellationError` after ``pause()``, ``cancel()`` or the task's cancellation;
    ///   `.checksumMismatch` (the file is dropped); `.unacceptableStatus` for an answer that is
    ///   not the file; `.writeFailed` when the disk refuses; the transport's errors once the
    ///   automatic resumes are spent (the bytes so far are kept for the next run).
    public func run() async throws -> DownloadResult {
        let task = Task { try await self.perform() }
        state.withLock { $0 = (task, nil) }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Stops the transfer and keeps what has arrived; ``run()`` throws `CancellationError`, and
    /// the next ``run()`` (or a new `Download` for the same destination) continues.
    public func pause() {
        stop(.pause)
    }

    /// Stops the transfer and deletes what has arrived.
    public func cancel() {
        stop(.cancel)
    }

    private func stop(_ stop: Stop) {
        let task = state.withLock { state -> Task<DownloadResult, any Error>? in
            state.stop = stop
            return state.task
        }
        task?.cancel()
    }

    // MARK: The work

    private func perform() async throws -> DownloadResult {
        let files = PartialDownload(destination: destination)
        var requests = 0
        var resumesLeft = max(0, configuration.resumeAttempts)
        var restartedAfter416 = false
        let firstOffset = (try? files.settleSegment()).map { files.resumePoint(for: request.url)?.offset ?? 0 } ?? 0
        while true {
            requests += 1
            do {
                return try await attempt(files, requests: requests, resumedFrom: firstOffset)
            } catch {
                if SluiceError.isCancellation(error) {
                    if state.withLock({ $0.stop }) == .cancel { files.discardAll() }
                    throw error
                }
                if let error = error as? SluiceError, [.connectionLost, .timedOut].contains(error.code), resumesLeft > 0, !Task.isCancelled {
                    resumesLeft -= 1
                    continue
                }
                if case RestartNeeded.rangeNotSatisfiable = error {
                    guard !restartedAfter416 else {
                        throw SluiceError(.invalidResponse, "\(request) answered 416 to a request for the whole file", stage: .client)
                    }
                    restartedAfter416 = true
                    continue
                }
                throw error
            }
        }
    }

    private enum RestartNeeded: Error { case rangeNotSatisfiable }

    private func attempt(_ files: PartialDownload, requests: Int, resumedFrom: Int64) async throws -> DownloadResult {
        try files.settleSegment()
        let resume = files.resumePoint(for: request.url)
        var request = self.request
        try request.headers.set(name: "Accept-Encoding", value: "identity")
        if let resume {
            try request.headers.set(name: "Range", value: "bytes=\(resume.offset)-")
            try request.headers.set(name: "If-Range", value: resume.ifRange)
        }
        request.responseBodyFile = resume == nil ? files.partial : files.segment

        let url = self.request.url.absoluteString
        let reporter = ProgressReporter(configuration.progress)
        var context = client.makeContext()
        context.responseHead = { status, fields in
            switch status.code {
            case 200:
                let record = PartialDownload.Record(
                    url: url, etag: fields["ETag"], lastModified: fields["Last-Modified"],
                    totalBytes: fields["Content-Length"].flatMap { Int64($0) }, segmentReplaces: resume == nil ? nil : true)
                try? files.save(record)
                reporter.start(base: 0, total: record.totalBytes)
            case 206:
                guard let resume, var record = files.record,
                    let range = fields["Content-Range"].flatMap(ContentRange.init), range.start == resume.offset
                else { return }
                record.segmentStart = resume.offset
                record.totalBytes = range.total ?? record.totalBytes
                try? files.save(record)
                reporter.start(base: resume.offset, total: record.totalBytes)
            default:
                break
            }
        }
        context.progress = { progress in
            if progress.direction == .download { reporter.report(progress.completedBytes) }
        }

        let response: HTTPResponse
        do {
            response = try await client.send(request, context: context)
        } catch {
            try? files.settleSegment()
            throw error
        }

        switch response.status.code {
        case 206:
            guard let resume, let range = response.headers["Content-Range"].flatMap(ContentRange.init), range.start == resume.offset else {
                files.discardAll()
                throw SluiceError(
                    .invalidResponse,
                    "\(self.request) answered 206 with Content-Range "
                        + "\(String(reflecting: response.headers["Content-Range"] ?? "")), which does not continue the file", stage: .client, response: response
                )
            }
            try files.settleSegment()
        case 200:
            if resume != nil { try files.settleSegment() }
        case 416 where resume != nil:
            files.discard(files.segment)
            if let total = files.record?.totalBytes, total == resume?.offset {
                break  // the partial file is already whole
            }
            files.discardAll()
            throw RestartNeeded.rangeNotSatisfiable
        default:
            if resume == nil { files.discardAll() } else { files.discard(files.segment) }
            throw SluiceError(.unacceptableStatus, "\(self.request) answered \(response.status), not the file", stage: .client, response: response)
        }

        let size = PartialDownload.size(files.partial) ?? 0
        if let total = files.record?.totalBytes, size != total {
            throw SluiceError(
                .connectionLost, "\(self.request) ended after \(size) of \(total) bytes; the bytes so far are kept for the next run",
                stage: .client, response: response)
        }
        var digest: String?
        if let expected = configuration.expectedSHA256?.lowercased() {
            let actual = try SHA256File.hex(of: files.partial)
            guard actual == expected else {
                files.discardAll()
                throw SluiceError(
                    .checksumMismatch, "\(self.request): the file's SHA-256 is \(actual), expected \(expected); it was not kept",
                    stage: .client, response: response)
            }
            digest = actual
        }
        // The partial file was written 0600; the finished one gets the mode asked for.
        guard chmod(files.partial.path, configuration.fileMode ?? umaskMode()) == 0, rename(files.partial.path, destination.path) == 0 else {
            throw SluiceError(
                .writeFailed, "cannot move the download into place at \(destination.path): \(String(cString: strerror(errno)))",
                stage: .client, response: response)
        }
        files.discardAll()
        var finished = response
        finished.bodyFile = destination
        return DownloadResult(file: destination, bytes: size, resumedFrom: resumedFrom, requests: requests, sha256: digest, response: finished)
    }
}

/// `bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange {
    let start: Int64
    let total: Int64?

    init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"), let start = Int64(parts[0][..<dash]) else { return nil }
        self.start = start
        total = Int64(parts[1])
    }
}

/// Turns the transport's per-request byte counts into whole-file progress with a rate.
final class ProgressReporter: Sendable {
    private let sink: (@Sendable (DownloadProgress) -> Void)?
    private let state = Locked<(base: Int64, total: Int64?, started: ContinuousClock.Instant?)>((0, nil, nil))

    init(_ sink: (@Sendable (DownloadProgress) -> Void)?) {
        self.sink = sink
    }

    func start(base: Int64, total: Int64?) {
        state.withLock { $0 = (base, total, .now) }
    }

    func report(_ received: Int64) {
        guard let sink else { return }
        let (base, total, started) = state.withLock { $0 }
        let elapsed = started.map { $0.duration(to: .now).timeInterval } ?? 0
        let rate = elapsed > 0 && received > 0 ? Double(received) / elapsed : nil
        let completed = base + received
        let left = total.flatMap { total -> Duration? in
            guard let rate, rate > 0 else { return nil }
            return .clampedSeconds(Double(max(0, total - completed)) / rate)
        }
        sink(DownloadProgress(completedBytes: completed, totalBytes: total, bytesPerSecond: rate, estimatedTimeRemaining: left))
    }
}

/// What the process's umask leaves of `0o666`, read from `/proc/self/status` (`umask(2)` can
/// only be read by changing it, which would race with other threads); `0o644` when unknown.
func umaskMode() -> mode_t {
    let line = SystemFile.text("/proc/self/status")?.split(separator: "\n").first { $0.hasPrefix("Umask:") }
    guard let value = line?.split(separator: "\t").last.flatMap({ mode_t($0.trimmingCharacters(in: .whitespaces), radix: 8) }) else {
        return 0o644
    }
    return 0o666 & ~value
}
