// sluice-transfer-probe: transfers for tests that need their own process.
//
//     sluice-transfer-probe upload URL FILE      multipart upload of FILE (and a text field)
//     sluice-transfer-probe download URL DEST    download to DEST (resuming what is there)
//     sluice-transfer-probe stream URL MICROS    a streamed GET read slowly: MICROS µs after each chunk
//
// Prints one JSON line: the status, the bytes, and this process's peak resident memory (VmHWM),
// so a test sees the transfer's own peak; or, for a download, the bytes it resumed from. A test
// may kill it mid-download to check that the next run resumes.
import Foundation
import Sluice
import SluiceCurl
import SluiceDownload
import SluiceMultipart

let arguments = CommandLine.arguments
guard arguments.count == 4, ["upload", "download", "stream"].contains(arguments[1]), let url = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: sluice-transfer-probe upload|download|stream URL PATH|MICROS\n".utf8))
    exit(2)
}

/// This process's peak resident set in KiB, from /proc/self/status.
func peakResidentKiB() -> Int {
    guard let status = SystemFile.text("/proc/self/status"),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return -1 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
}

var code: Int32 = 0
do {
    let path = URL(fileURLWithPath: arguments[3])
    if arguments[1] == "stream" {
        let pause = Duration.microseconds(Int(arguments[3]) ?? 0)
        let response = try await Client(transport: CurlTransport()).stream(HTTPRequest(url: url))
        // The process's own floor (runtime, Foundation, curl and OpenSSL set up, one connection
        // open): what the body adds is measured from here.
        let atHead = peakResidentKiB()
        var bytes = 0
        var chunks = 0
        var nonZero = 0
        for try await chunk in response.bodyStream! {
            bytes += chunk.count
            chunks += 1
            nonZero += chunk.reduce(0) { $0 + ($1 == 0 ? 0 : 1) }
            try await Task.sleep(for: pause)
        }
        print(
            #"{"status": \#(response.status.code), "bytes": \#(bytes), "chunks": \#(chunks), "nonZero": \#(nonZero), "peakAtHeadKiB": \#(atHead), "peakResidentKiB": \#(peakResidentKiB())}"#
        )
    } else if arguments[1] == "upload" {
        var form = MultipartFormData()
        form.append("probe", name: "note")
        form.append(fileAt: path, name: "file")
        var request = HTTPRequest(method: .post, url: url)
        try request.setMultipart(form)
        let length = request.body.length ?? -1
        let response = try await CurlTransport().send(request, context: RequestContext())
        let sent = response.metrics?.bytesSent ?? -1
        print(#"{"status": \#(response.status.code), "contentLength": \#(length), "bytesSent": \#(sent), "peakResidentKiB": \#(peakResidentKiB())}"#)
    } else {
        let result = try await Client(transport: CurlTransport()).download(HTTPRequest(url: url), to: path)
        print(
            #"{"status": \#(result.response.status.code), "bytes": \#(result.bytes), "resumedFrom": \#(result.resumedFrom), "peakResidentKiB": \#(peakResidentKiB())}"#
        )
    }
} catch {
    FileHandle.standardError.write(Data("sluice-transfer-probe: \(error)\n".utf8))
    code = 1
}
exit(code)
