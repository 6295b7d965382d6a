// sluice-multipart-probe URL FILE: uploads FILE as a multipart form (a text field and the file)
// through CurlTransport and prints one JSON line with the status, the bytes curl sent, the body's
// length and this process's peak resident memory (VmHWM). The multipart tests run it as a child
// process, so the peak is the upload's alone.
import Foundation
import Sluice
import SluiceCurl
import SluiceMultipart

let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: sluice-multipart-probe URL FILE\n".utf8))
    exit(2)
}

/// This process's peak resident set in KiB, from /proc/self/status.
func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return -1 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
}

let finished = DispatchSemaphore(value: 0)
// Written by the task before it signals `finished`; read only after the wait.
nonisolated(unsafe) var code: Int32 = 0
Task.detached {
    do {
        var form = MultipartFormData()
        form.append("probe", name: "note")
        form.append(fileAt: URL(fileURLWithPath: arguments[2]), name: "file")
        var request = HTTPRequest(method: .post, url: url)
        try request.setMultipart(form)
        let length = request.body.length ?? -1
        let response = try await CurlTransport().send(request, context: RequestContext())
        let sent = response.metrics?.bytesSent ?? -1
        print(#"{"status": \#(response.status.code), "contentLength": \#(length), "bytesSent": \#(sent), "peakResidentKiB": \#(peakResidentKiB())}"#)
    } catch {
        FileHandle.standardError.write(Data("sluice-multipart-probe: \(error)\n".utf8))
        code = 1
    }
    finished.signal()
}
finished.wait()
exit(code)
