import Foundation
import Sluice
import SluiceCurl
import SluiceMultipart
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("Multipart uploads over the wire")
struct MultipartUploadTests {
    @Test func httpbinEchoesEveryFieldAndFileExactly() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-multipart")
        let text = "first line\nsecond line: ünïcödé ✓\n"
        let binary = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        var form = MultipartFormData()
        form.append("Ada", name: "author")
        form.append("naïve & <tags> = \"quotes\"", name: "comment")
        form.append(fileAt: try scratch.write(Data(text.utf8), to: "notes.txt"), name: "notes")
        form.append(fileAt: try scratch.write(binary, to: "blob.bin"), name: "blob")
        form.append(Data(#"{"k":[1,2]}"#.utf8), name: "meta", filename: "meta.json")
        var request = HTTPRequest(method: .post, url: try InteropServers.httpbin("/post"))
        try request.setMultipart(form)
        let response = try await CurlTransport().send(request, context: RequestContext())
        #expect(response.status == .ok)
        let echo = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(echo["form"] as? [String: String] == ["author": "Ada", "comment": "naïve & <tags> = \"quotes\""])
        let files = try #require(echo["files"] as? [String: String])
        #expect(files["notes"] == text)
        #expect(files["meta"] == #"{"k":[1,2]}"#)
        // httpbin gives binary files back as a data URL.
        #expect(files["blob"] == "data:application/octet-stream;base64," + binary.base64EncodedString())
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["Content-Type"] == form.contentType)
        #expect(headers["Content-Length"] == String(try form.encode().count))
    }

    @Test func uploadProgressClimbsToTheWholeBody() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-multipart")
        let server = try MockWebServer(recordedBodyLimit: 1024)
        server.setHandler { _ in .init(status: 200, body: "ok") }
        var form = MultipartFormData()
        form.append(fileAt: try scratch.write(Data(count: 3 << 20), to: "data.bin"), name: "data")
        var request = HTTPRequest(method: .post, url: server.url("/upload"))
        try request.setMultipart(form)
        let reports = Locked<[TransferProgress]>([])
        var context = RequestContext()
        context.progress = { progress in if progress.direction == .upload { reports.withLock { $0.append(progress) } } }
        let response = try await CurlTransport().send(request, context: context)
        #expect(response.status == .ok)
        let uploads = reports.withLock { $0 }
        let length = try #require(request.body.length)
        #expect(uploads.last?.completedBytes == length)
        #expect(uploads.allSatisfy { $0.totalBytes == length })
        #expect(zip(uploads, uploads.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        #expect(server.requests.first?.bodyLength == Int(length))
    }

    @Test func twoHundredMegabytesGoOutWithLessThan64MegabytesResident() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-multipart")
        let file = scratch.url.appendingPathComponent("big.bin")
        // A sparse file: 200 MB to read, nothing written to disk.
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 200 << 20)
        try handle.close()
        let server = try MockWebServer(recordedBodyLimit: 4096)
        server.setHandler { request in .init(status: 200, body: "\(request.bodyLength)") }

        let process = Process()
        process.executableURL = try probe()
        process.arguments = ["upload", server.url("/upload").absoluteString, file.path]
        // Under `make test-asan`, AddressSanitizer keeps 256 MB of freed memory in quarantine by
        // default; a small quarantine measures the upload's own memory. Other builds ignore it.
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = "quarantine_size_mb=8:" + (environment["ASAN_OPTIONS"] ?? "")
        process.environment = environment
        let (data, status) = try await Blocking.output(of: process)
        #expect(status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        let recorded = try #require(server.requests.first)
        print("200 MB multipart upload: peak resident \(report["peakResidentKiB"] ?? -1) KiB, \(report["bytesSent"] ?? -1) bytes sent")
        #expect(report["status"] == 200)
        #expect(report["contentLength"] == recorded.bodyLength)
        #expect(recorded.bodyLength > 200 << 20)
        #expect(recorded.header("Content-Length") == String(recorded.bodyLength))
        #expect(String(decoding: recorded.body, as: UTF8.self).contains(#"name="file"; filename="big.bin""#))
        #expect((report["peakResidentKiB"] ?? .max) < MemoryBounds.scaled(64 * 1024))
    }

    func probe() throws -> URL {
        try BuiltProducts.executable("sluice-transfer-probe")
    }
}
