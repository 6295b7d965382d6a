import Foundation
import Sluice
import SluiceCurl
import SluiceDownload
import SluiceTestSupport
import SluiceTesting
import Testing

/// The SHA-256 of `data` from coreutils' `sha256sum`: an oracle independent of the code under test.
/// Run on a thread of its own (`Blocking.run`), not on one of the few cooperative threads.
func sha256sum(_ data: Data) async throws -> String {
    try await Blocking.run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        SystemFile.write(Array(data), to: input.fileHandleForWriting.fileDescriptor)  // sha256sum reads it all before it writes a line
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix(64))
    }
}

/// A file server on MockWebServer that honours `Range` and `If-Range` the way nginx does, and
/// can be told to misbehave on the next request.
final class RangeServer: Sendable {
    struct File: Sendable {
        var data: Data
        var etag: String
        var ignoresRanges = false
        /// Send this many body bytes of the next response, then drop the connection.
        var dropAfter: Int?
        /// Send the body in pieces of this size, pausing between them.
        var throttle: (bytes: Int, interval: Duration)?
        /// Send this many body bytes, then wait for the gate.
        var stall: (bytes: Int, gate: TestGate)?
    }

    private final class Box: Sendable {
        let file: Locked<File>
        init(_ file: File) { self.file = Locked(file) }
    }

    let server: MockWebServer
    private let box: Box

    init(_ data: Data, etag: String = "\"v1\"") throws {
        server = try MockWebServer()
        let box = Box(File(data: data, etag: etag))
        self.box = box
        server.setHandler { request in
            var next = box.file.withLock { file -> File in
                let current = file
                file.dropAfter = nil
                return current
            }
            var response: MockWebServer.Response
            let total = next.data.count
            if let range = request.header("Range"), !next.ignoresRanges,
                request.header("If-Range").map({ $0 == next.etag }) ?? true,
                let start = Int(range.dropFirst("bytes=".count).split(separator: "-").first ?? "")
            {
                if start >= total {
                    response = .init(status: 416, headers: [("Content-Range", "bytes */\(total)")], body: Data("not satisfiable".utf8))
                } else {
                    response = .init(
                        status: 206,
                        headers: [
                            ("ETag", next.etag), ("Content-Range", "bytes \(start)-\(total - 1)/\(total)"),
                            ("Accept-Ranges", "bytes"),
                        ], body: next.data.subdata(in: start..<total))
                }
            } else {
                response = .init(status: 200, headers: [("ETag", next.etag), ("Accept-Ranges", "bytes")], body: next.data)
            }
            if let drop = next.dropAfter { response = response.with(fault: .disconnectAfterBodyBytes(drop)) }
            if let throttle = next.throttle { response = response.with(throttle: throttle.bytes, every: throttle.interval) }
            if let stall = next.stall { response = response.with(stallAfter: stall.bytes, until: stall.gate) }
            next.dropAfter = nil
            return response
        }
    }

    /// Changes what the server serves from the next request on.
    func update(_ change: (inout File) -> Void) {
        box.file.withLock { change(&$0) }
    }

    var url: URL { server.url("/files/data.bin") }
    var requests: [MockWebServer.RecordedRequest] { server.requests }
}

extension TemporaryDirectory {
    /// The files a download leaves beside its destination while unfinished.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.contains("sluice-partial") }.sorted()
    }
}

func payload(_ count: Int, seed: UInt8 = 7) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) &+ seed })
}

@Suite("Downloads against MockWebServer")
struct DownloadTests {
    let client = Client(transport: CurlTransport())

    @Test func aDroppedConnectionIsResumedAndTheChecksumMatches() async throws {
        let data = payload(3 << 20)
        let server = try RangeServer(data)
        server.update { $0.dropAfter = 1_200_000 }
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        let expected = try await sha256sum(data)
        let result = try await client.download(HTTPRequest(url: server.url), to: destination, configuration: .init(expectedSHA256: expected.uppercased()))
        #expect(result.sha256 == expected)
        #expect(result.bytes == Int64(data.count))
        #expect(result.requests == 2)
        #expect(try Data(contentsOf: destination) == data)
        #expect(server.requests.count == 2)
        #expect(server.requests[0].header("Range") == nil)
        #expect(server.requests[1].header("Range") == "bytes=1200000-")
        #expect(server.requests[1].header("If-Range") == "\"v1\"")
        #expect(server.requests.allSatisfy { $0.header("Accept-Encoding") == "identity" })
        #expect(try scratch.leftovers() == [])
    }

    @Test func aBrokenRunKeepsItsBytesAndTheNextRunContinues() async throws {
        let data = payload(2 << 20)
        let server = try RangeServer(data)
        server.update { $0.dropAfter = 700_000 }
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        await #expect {
            _ = try await client.download(HTTPRequest(url: server.url), to: destination, configuration: .init(resumeAttempts: 0))
        } throws: { error in
            (error as? SluiceError)?.code == .connectionLost
        }
        #expect(try scratch.leftovers() == ["data.bin.sluice-partial", "data.bin.sluice-partial.json"])
        // The state names the URL, which may carry a token: only its owner may read it.
        let stateMode = try FileManager.default.attributesOfItem(atPath: destination.path + ".sluice-partial.json")[.posixPermissions] as? Int
        #expect(stateMode == 0o600)
        // So do the bytes so far, until the file is finished.
        let partialMode = try FileManager.default.attributesOfItem(atPath: destination.path + ".sluice-partial")[.posixPermissions] as? Int
        #expect(partialMode == 0o600)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let result = try await client.download(HTTPRequest(url: server.url), to: destination)
        #expect(result.resumedFrom == 700_000)
        #expect(try Data(contentsOf: destination) == data)
        #expect(server.requests.last?.header("Range") == "bytes=700000-")
    }

    /// The process's umask, from the kernel: what a new file's mode loses.
    static func umask() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }

    @Test func aPlantedLinkAtThePartialFileIsNeverFollowedAndTheDownloadStartsOver() async throws {
        let data = payload(300_000)
        let server = try RangeServer(data)
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        let victim = scratch.filePath("victim")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        // Someone plants a link where the partial file goes, and a record that invites a resume.
        try FileManager.default.createSymbolicLink(atPath: destination.path + ".sluice-partial", withDestinationPath: victim)
        let record = #"{"url":"\#(server.url.absoluteString)","etag":"\"v1\"","totalBytes":300000}"#
        try Data(record.utf8).write(to: URL(fileURLWithPath: destination.path + ".sluice-partial.json"))
        let result = try await client.download(HTTPRequest(url: server.url), to: destination)
        #expect(result.resumedFrom == 0)
        #expect(server.requests.first?.header("Range") == nil)
        #expect(try Data(contentsOf: destination) == data)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        // Finished: the mode the umask gives a new file, not the partial file's 0600.
        let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
        #expect(mode == 0o666 & ~(try Self.umask()))
    }

    @Test func theFinishedFileGetsTheModeAskedFor() async throws {
        let server = try RangeServer(payload(10_000))
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("private.bin")
        _ = try await client.download(HTTPRequest(url: server.url), to: destination, configuration: .init(fileMode: 0o600))
        #expect(try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int == 0o600)
    }

    @Test func aResponseBodyFileIsNeverWrittenThroughALink() async throws {
        let server = try RangeServer(payload(1_000))
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let victim = scratch.filePath("victim")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let link = scratch.url.appendingPathComponent("body.bin")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: victim)
        var request = HTTPRequest(url: server.url)
        request.responseBodyFile = link
        await #expect {
            _ = try await CurlTransport().send(request, context: RequestContext())
        } throws: { error in
            (error as? SluiceError)?.code == .writeFailed
                && (error as? SluiceError)?.message == "cannot open \(link.path) to write the response body: it is a symbolic link"
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
    }

    @Test func aChangedFileAnswers200AndTheDownloadRestartsCleanly() async throws {
        let server = try RangeServer(payload(1 << 20))
        server.update { $0.dropAfter = 400_000 }
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        _ = try? await client.download(HTTPRequest(url: server.url), to: destination, configuration: .init(resumeAttempts: 0))
        let changed = payload(900_000, seed: 99)
        server.update {
            $0.data = changed; $0.etag = "\"v2\""
        }
        let result = try await client.download(
            HTTPRequest(url: server.url), to: destination,
            configuration: .init(expectedSHA256: try await sha256sum(changed)))
        #expect(server.requests.last?.header("If-Range") == "\"v1\"")
        #expect(result.response.status == .ok)
        #expect(try Data(contentsOf: destination) == changed)
        #expect(try scratch.leftovers() == [])
    }

    @Test func aServerThatIgnoresRangesGetsTheWholeFileOnce() async throws {
        let data = payload(600_000)
        let server = try RangeServer(data)
        server.update {
            $0.dropAfter = 100_000; $0.ignoresRanges = true
        }
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        let result = try await client.download(HTTPRequest(url: server.url), to: destination)
        #expect(result.requests == 2)
        #expect(try Data(contentsOf: destination) == data)
    }

    @Test func a416ForAWholePartialFinishesAndForAShrunkFileRestarts() async throws {
        let data = payload(300_000)
        let server = try RangeServer(data)
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        // A run that got every byte but died before moving the file into place.
        try data.write(to: destination.appendingPathExtension("sluice-partial"))
        try Data(#"{"url":"\#(server.url.absoluteString)","etag":"\"v1\"","totalBytes":300000}"#.utf8)
            .write(to: destination.appendingPathExtension("sluice-partial.json"))
        let whole = try await client.download(HTTPRequest(url: server.url), to: destination)
        #expect(whole.response.status.code == 416)
        #expect(try Data(contentsOf: destination) == data)
        #expect(server.requests.count == 1)

        // The file on the server shrank below what we hold: 416, then a clean restart.
        try FileManager.default.removeItem(at: destination)
        try payload(500_000).write(to: destination.appendingPathExtension("sluice-partial"))
        try Data(#"{"url":"\#(server.url.absoluteString)","etag":"\"v1\"","totalBytes":800000}"#.utf8)
            .write(to: destination.appendingPathExtension("sluice-partial.json"))
        let restarted = try await client.download(HTTPRequest(url: server.url), to: destination)
        #expect(server.requests.suffix(2).map { $0.header("Range") } == ["bytes=500000-", nil])
        #expect(restarted.response.status == .ok)
        #expect(try Data(contentsOf: destination) == data)
        #expect(try scratch.leftovers() == [])
    }

    @Test func pauseKeepsTheBytesAndResumeContinuesThem() async throws {
        let data = payload(2 << 20)
        let server = try RangeServer(data)
        let gate = TestGate()
        defer { gate.open() }
        server.update { $0.stall = (300_000, gate) }
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        let reports = Locked<[DownloadProgress]>([])
        let download = Download(
            HTTPRequest(url: server.url), to: destination, using: client,
            configuration: .init(progress: { progress in reports.withLock { $0.append(progress) } }))
        let running = Task { try await download.run() }
        try await Wait.until("300 KB arrive") { reports.withLock { $0.last?.completedBytes ?? 0 } >= 300_000 }
        download.pause()
        await #expect(throws: CancellationError.self) { try await running.value }
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: destination.path + ".sluice-partial")[.size] as? Int)
        #expect(kept == 300_000)
        #expect(try scratch.leftovers() == ["data.bin.sluice-partial", "data.bin.sluice-partial.json"])

        server.update { $0.stall = nil }
        let result = try await download.run()
        #expect(result.resumedFrom == Int64(kept))
        #expect(server.requests.last?.header("Range") == "bytes=\(kept)-")
        #expect(try Data(contentsOf: destination) == data)
        let seen = reports.withLock { $0 }
        #expect(seen.last?.completedBytes == Int64(data.count))
        #expect(seen.allSatisfy { $0.totalBytes == Int64(data.count) })
        #expect(seen.contains { ($0.bytesPerSecond ?? 0) > 0 && $0.estimatedTimeRemaining != nil })
    }

    @Test func cancelDropsTheBytes() async throws {
        let server = try RangeServer(payload(1 << 20))
        let gate = TestGate()
        defer { gate.open() }
        server.update { $0.stall = (100_000, gate) }
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        let download = Download(HTTPRequest(url: server.url), to: destination, using: client)
        let running = Task { try await download.run() }
        try await Wait.until("the partial file fills") {
            // The transport writes through a buffered FILE, so the size on disk trails the bytes sent.
            ((try? FileManager.default.attributesOfItem(atPath: destination.path + ".sluice-partial")[.size] as? Int) ?? 0) >= 80_000
        }
        download.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(try scratch.leftovers() == [])
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func aWrongChecksumKeepsNothing() async throws {
        let server = try RangeServer(payload(100_000))
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        let actual = try await sha256sum(payload(100_000))
        let wrong = String(repeating: "0", count: 64)
        do {
            _ = try await client.download(HTTPRequest(url: server.url), to: destination, configuration: .init(expectedSHA256: wrong))
            Issue.record("kept a file with the wrong checksum")
        } catch let error as SluiceError {
            #expect(error.code == .checksumMismatch)
            #expect(error.message == "GET \(server.url.absoluteString): the file's SHA-256 is \(actual), expected \(wrong); it was not kept")
        }
        #expect(try scratch.leftovers() == [])
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func anErrorPageIsNotSavedAsTheFile() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 404, body: "no such file"))
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        do {
            _ = try await client.download(HTTPRequest(url: server.url("/missing")), to: destination)
            Issue.record("saved a 404")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableStatus)
            #expect(error.message == "GET \(server.url("/missing").absoluteString) answered 404 Not Found, not the file")
        }
        #expect(try scratch.leftovers() == [])
    }

    @Test func aKilledProcessLeavesBytesThatTheNextProcessResumes() async throws {
        let data = payload(4 << 20)
        let server = try RangeServer(data)
        let gate = TestGate()
        defer { gate.open() }
        server.update { $0.stall = (500_000, gate) }
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let destination = scratch.url.appendingPathComponent("data.bin")
        let partial = destination.path + ".sluice-partial"

        let child = Process()
        child.executableURL = try probe()
        child.arguments = ["download", server.url.absoluteString, destination.path]
        try child.run()
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(60))
        // The child writes through a buffered FILE: what reaches the disk trails the 500 KB sent.
        while ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) < 400_000 {
            guard ContinuousClock.now < deadline, child.isRunning else { Issue.record("the child stopped, or 400 KB never reached its partial file"); break }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(child.processIdentifier, SIGKILL)
        try await Blocking.run { child.waitUntilExit() }
        #expect(child.terminationReason == .uncaughtSignal)
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int)

        #expect(kept >= 400_000 && kept <= 500_000)
        server.update { $0.stall = nil }
        let result = try await client.download(
            HTTPRequest(url: server.url), to: destination,
            configuration: .init(expectedSHA256: try await sha256sum(data)))
        #expect(result.resumedFrom == Int64(kept))
        #expect(server.requests.last?.header("Range") == "bytes=\(kept)-")
        #expect(try Data(contentsOf: destination) == data)
        #expect(try scratch.leftovers() == [])
    }

    func probe() throws -> URL {
        try BuiltProducts.executable("sluice-transfer-probe")
    }
}
