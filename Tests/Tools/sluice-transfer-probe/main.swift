// sluice-transfer-probe: transfers for tests that need their own process.
//
//     sluice-transfer-probe upload URL FILE      multipart upload of FILE (and a text field)
//     sluice-transfer-probe download URL DEST    download to DEST (resuming what is there)
//     sluice-transfer-probe stream URL MICROS    a streamed GET read slowly: MICROS µs after each chunk
//     sluice-transfer-probe encrypted-upload URL FILE   a PUT of FILE, aes128gcm-encrypted as it is sent
//     sluice-transfer-probe encrypted-stream URL DEST   a streamed GET of an aes128gcm body, decrypted
//                                                       chunk by chunk into DEST
//     sluice-transfer-probe doh URL DOH_URL     a GET and a POST with a streamed body to URL, its
//                                               name resolved by DOH_URL (CA file in SLUICE_PROBE_CA),
//                                               request heads recorded: what curl prints goes nowhere
//     sluice-transfer-probe decoded-stream URL RATIO   a streamed GET through GzipMiddleware whose ratio
//                                               limit is RATIO: its bytes, chunks, largest chunk, peaks
// The encrypted modes take the secret from SLUICE_PROBE_SECRET (base64), key id "probe", and the
// record size from SLUICE_PROBE_RECORD_SIZE (4096 without it).
//
// Prints one JSON line: the status, the bytes, and this process's peak resident memory (VmHWM),
// so a test sees the transfer's own peak; or, for a download, the bytes it resumed from. A test
// may kill it mid-download to check that the next run resumes.
import Foundation
import Sluice
import SluiceCurl
import SluiceDownload
import SluiceEncryption
import SluiceGzip
import SluiceMultipart

let arguments = CommandLine.arguments
let modes = ["upload", "download", "stream", "encrypted-upload", "encrypted-stream", "doh", "decoded-stream"]
guard arguments.count == 4, modes.contains(arguments[1]), let url = URL(string: arguments[2]) else {
    FileHandle.standardError.write(
        Data("usage: sluice-transfer-probe upload|download|stream|encrypted-upload|encrypted-stream|doh|decoded-stream URL PATH|MICROS|DOH_URL|RATIO\n".utf8))
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
    let path = URL(fileURLWithPath: arguments[3])  // (the DoH URL in mode doh)
    if arguments[1].hasPrefix("encrypted-") {
        let secret = Data(base64Encoded: ProcessInfo.processInfo.environment["SLUICE_PROBE_SECRET"] ?? "") ?? Data()
        let recordSize = Int(ProcessInfo.processInfo.environment["SLUICE_PROBE_RECORD_SIZE"] ?? "") ?? 4096
        let cipher = AES128GCMContentCoding(
            keys: StaticKeyProvider(keys: ["probe": secret], current: "probe"), configuration: .init(recordSize: recordSize))
        let client = Client(transport: CurlTransport(), middlewares: [PayloadEncryptionMiddleware(cipher: cipher)])
        if arguments[1] == "encrypted-upload" {
            let response = try await client.send(HTTPRequest(method: .put, url: url, body: .file(path)))
            print(#"{"status": \#(response.status.code), "bytesSent": \#(response.metrics?.bytesSent ?? -1), "peakResidentKiB": \#(peakResidentKiB())}"#)
        } else {
            let response = try await client.stream(HTTPRequest(url: url))
            _ = FileManager.default.createFile(atPath: path.path, contents: nil)
            let output = try FileHandle(forWritingTo: path)
            var bytes = 0
            for try await chunk in response.bodyStream! {
                try output.write(contentsOf: chunk)
                bytes += chunk.count
            }
            try output.close()
            print(#"{"status": \#(response.status.code), "bytes": \#(bytes), "peakResidentKiB": \#(peakResidentKiB())}"#)
        }
    } else if arguments[1] == "stream" {
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
    } else if arguments[1] == "decoded-stream" {
        let limits = GzipCodec.Limits(maximumRatio: Int(arguments[3]) ?? 1_000)
        let client = Client(transport: CurlTransport(), middlewares: [GzipMiddleware(configuration: .init(limits: limits))])
        let response = try await client.stream(HTTPRequest(url: url))
        let atHead = peakResidentKiB()
        var bytes = 0, chunks = 0, largest = 0
        for try await chunk in response.bodyStream! {
            bytes += chunk.count
            chunks += 1
            largest = max(largest, chunk.count)
        }
        print(
            #"{"status": \#(response.status.code), "bytes": \#(bytes), "chunks": \#(chunks), "largestChunk": \#(largest), "peakAtHeadKiB": \#(atHead), "peakResidentKiB": \#(peakResidentKiB())}"#
        )
    } else if arguments[1] == "doh" {
        var configuration = CurlTransport.Configuration.default
        configuration.dnsOverHTTPS = URL(string: arguments[3])
        configuration.tls.caFile = ProcessInfo.processInfo.environment["SLUICE_PROBE_CA"]
        configuration.recordsRequestHeads = true
        let client = Client(transport: CurlTransport(configuration: configuration))
        let get = try await client.send(HTTPRequest(url: url))
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("streamed ".utf8))
            continuation.yield(Data("body".utf8))
            continuation.finish()
        }
        let post = try await client.send(HTTPRequest(method: .post, url: url, body: .stream(.oneShot(length: nil, chunks))))
        print(#"{"status": \#(get.status.code), "postStatus": \#(post.status.code)}"#)
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
