import Foundation
import Sluice
import SluiceCurl
import SluiceLogging
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite struct SinkTests {
    @Test func aFileSinkAppendsWholeRecordsWithPrivateMode() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-log-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let middleware = LoggingMiddleware(level: .basic, sink: try .file(url))
            let harness = MiddlewareHarness(middleware, replies: [.status(.ok), .status(.noContent)])
            _ = try await harness.send(HTTPRequest(url: URL(string: "https://example.com/a")!))
            _ = try await harness.send(HTTPRequest(url: URL(string: "https://example.com/b")!))
        }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("GET https://example.com/a -> 200 OK, 0 B, "))
        #expect(lines[1].hasPrefix("GET https://example.com/b -> 204 No Content, 0 B, "))
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func anUnopenableFileIsATypedError() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/http.log")
        #expect {
            _ = try LogSink.file(url)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .writeFailed && error?.message == "cannot open log file \(url.path): No such file or directory"
        }
    }
}
