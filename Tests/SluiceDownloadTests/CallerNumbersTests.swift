import Foundation
import Sluice
import SluiceCurl
import SluiceDownload
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceDownload's public numbers driven with every hostile value of ``CallerNumbers``: a resume
/// count of 0 or less resumes nothing, progress records hold any numbers, and nothing traps.
@Suite("Caller numbers: SluiceDownload", .timeLimit(.minutes(1)))
struct DownloadCallerNumbersTests {
    @Test(.covers("Download.Configuration.resumeAttempts"), arguments: CallerNumbers.ints)
    func resumeAttempts(_ attempts: Int) async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "whole file") }
        let folder = try TemporaryDirectory(prefix: "sluice-caller-numbers")
        let client = Client(transport: CurlTransport())
        let download = Download(
            HTTPRequest(url: server.url("/f")), to: folder.fileURL("f"), using: client, configuration: .init(resumeAttempts: attempts))
        let result = try await download.run()
        #expect(result.bytes == 10)
        #expect(try String(contentsOf: result.file, encoding: .utf8) == "whole file")
    }

    @Test(
        .covers(
            "DownloadProgress.completedBytes", "DownloadProgress.totalBytes", "DownloadProgress.bytesPerSecond",
            "DownloadProgress.estimatedTimeRemaining"),
        arguments: CallerNumbers.int64s)
    func progressRecords(_ bytes: Int64) {
        for rate in CallerNumbers.doubles {
            for left in CallerNumbers.durations {
                let progress = DownloadProgress(completedBytes: bytes, totalBytes: bytes, bytesPerSecond: rate, estimatedTimeRemaining: left)
                #expect(progress.fractionCompleted.map { $0.isFinite } ?? true)
            }
        }
    }
}
