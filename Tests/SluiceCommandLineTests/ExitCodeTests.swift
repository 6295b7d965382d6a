import Foundation
import Sluice
import SluiceCommandLine
import SluiceCurl
import Testing

@Suite("Exit codes")
struct ExitCodeTests {
    /// curl's number wins when curl failed the transfer, even under a wrapping error.
    @Test(arguments: [
        (6, SluiceError.Code.dnsFailure, Int32(6)), (7, .cannotConnect, 7), (28, .timedOut, 28), (35, .tlsFailure, 35),
        (60, .tlsFailure, 60), (90, .tlsFailure, 90), (47, .tooManyRedirects, 47), (18, .connectionLost, 18),
        (52, .connectionLost, 52), (55, .connectionLost, 55), (56, .connectionLost, 56), (8, .invalidResponse, 8),
        (23, .writeFailed, 23), (63, .bodyTooLarge, 63),
        // curl numbers sluice has no code for fall back to the kind of failure.
        (3, .invalidURL, 2), (61, .invalidResponse, 8), (58, .tlsFailure, 35),
    ])
    func curlsOwnNumberIsTheExitCode(curl: Int, code: SluiceError.Code, expected: Int32) {
        let direct = SluiceError(code, "x", underlying: CurlError(code: curl, summary: "s", detail: ""))
        #expect(ExitCode(for: direct).rawValue == expected)
        let wrapped = SluiceError(code, "retried", underlying: direct)
        #expect(ExitCode(for: wrapped).rawValue == expected)
    }

    /// Failures that do not come from curl get the number curl would have used.
    @Test(arguments: [
        (SluiceError.Code.tooManyRedirects, Int32(47)), (.timedOut, 28), (.offline, 7), (.cancelled, 130), (.checksumMismatch, 101),
        (.bodyTooLarge, 63), (.writeFailed, 23), (.invalidHeader, 2), (.other, 1),
    ])
    func sluicesOwnFailuresUseCurlsNumbers(code: SluiceError.Code, expected: Int32) {
        #expect(ExitCode(for: SluiceError(code, "x")).rawValue == expected)
    }

    @Test func statusesNeedCheckStatus() {
        #expect(ExitCode(status: 404, checkStatus: false) == .success)
        #expect([301, 404, 503, 204].map { ExitCode(status: $0, checkStatus: true).rawValue } == [3, 4, 5, 0])
    }

    @Test func helpListsEveryCodeOnce() {
        for code in ExitCode.allCases {
            let line = "  \(String(code.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0))\(code.meaning)"
            #expect(HelpText.text.components(separatedBy: "\n").filter { $0 == line }.count == 1, "\(code)")
        }
    }
}

@Suite("Exit codes in docs/command-line.md")
struct ExitCodeReadmeTests {
    @Test func theManualsTableListsExactlyTheCodes() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/command-line.md").standardized
        let rows = try String(contentsOf: readme, encoding: .utf8).components(separatedBy: "\n")
            .filter { $0.hasPrefix("| ") && $0.dropFirst(2).first?.isNumber == true }
        let codes = rows.filter { row in ExitCode.allCases.contains { row == "| \($0.rawValue) | \($0.meaning) |" } }
        #expect(codes.count == ExitCode.allCases.count)
    }
}
