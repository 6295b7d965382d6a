import Foundation
import Sluice

/// Collects finished calls as HAR 1.2 entries, which any browser's devtools open (Network tab,
/// "Import HAR"), and ``HARReplayTransport`` answers from. Fed by ``HARRecorderMiddleware``.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceLogging
///
/// let recorder = HARRecorder()
/// builder.add(HARRecorderMiddleware(recorder: recorder))
/// // … run the app …
/// try recorder.write(to: URL(fileURLWithPath: "session.har"))
/// ```
///
/// Secrets are redacted by default (`Redaction.default`): header values, query, form and JSON
/// parameters. Bodies are kept as text when they are UTF-8, else base64.
public final class HARRecorder: Sendable {
    /// What a recording hides and how much of each body it keeps.
    public struct Configuration: Sendable {
        /// What the recording hides, beside each request's own policy
        /// (`HTTPRequest.redaction`, the client's), which is always added to it.
        public var redaction: Redaction
        /// The largest body kept per entry; longer ones are cut and the entry says so in `comment`.
        /// 0 or less keeps none.
        public var bodyLimit: Int

        /// Settings with each value given, or its default.
        public init(redaction: Redaction = .default, bodyLimit: Int = 1 << 20) {
            self.redaction = redaction
            self.bodyLimit = bodyLimit
        }

        /// Redaction on, bodies up to 1 MiB.
        public static let `default` = Configuration()
    }

    /// How it behaves.
    public let configuration: Configuration
    private let entries = Locked<[HARDocument.Entry]>([])

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// How many calls were recorded.
    public var count: Int { entries.withLock { $0.count } }

    /// Forgets every entry.
    public func reset() { entries.withLock { $0 = [] } }

    /// The HAR file's bytes (pretty-printed JSON).
    public func data() throws -> Data {
        let document = HARDocument(
            log: .init(
                creator: .init(name: "Sluice", version: SluiceVersion.current),
                entries: entries.withLock { $0 }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// Writes the HAR file atomically (a temporary name, then a rename), readable only by its
    /// owner (mode 0600): even redacted, a recording holds bodies and URLs.
    ///
    /// - Throws: `SluiceError` `.writeFailed` naming the path and the reason.
    public func write(to url: URL) throws {
        let document = try data()
        do {
            try PrivateFile.write(document, to: url.path)
        } catch {
            throw SluiceError(.writeFailed, "cannot write HAR file \(url.path): \(error.reason)", underlying: error)
        }
    }

    /// Records one exchange.
    public func record(request: HTTPRequest, response: HTTPResponse, started: Date, elapsed: Duration) {
        let entry = makeEntry(request: request, response: response, started: started, elapsed: elapsed)
        entries.withLock { $0.append(entry) }
    }

    func makeEntry(request: HTTPRequest, response: HTTPResponse, started: Date, elapsed: Duration) -> HARDocument.Entry {
        let redaction = configuration.redaction.adding(request.redaction)
        let version = response.metrics?.httpVersion.map { "HTTP/" + ($0.contains(".") || $0 == "2" || $0 == "3" ? $0 : $0 + ".0") } ?? "HTTP/1.1"
        let url = redaction.url(request.url)
        let secrets = redaction.secretValues(of: request, body: true)
        let query =
            URLComponents(string: url)?.percentEncodedQueryItems?.map {
                HARDocument.NameValue(name: PercentEncoding.decode($0.name) ?? $0.name, value: PercentEncoding.decode($0.value ?? "") ?? $0.value ?? "")
            } ?? []
        var notes: [String] = []
        var postData: HARDocument.PostData?
        var requestBodySize = 0
        let confidential = response.bodiesAreConfidential
        let requestConfidential = response.requestBodyWasConfidential
        if confidential {
            notes.append("bodies not recorded: they went over the wire end-to-end encrypted")
        } else if requestConfidential {
            notes.append("request body not recorded: it went over the wire end-to-end encrypted")
        }
        switch request.body {
        case .empty: break
        case .bytes(let data) where requestConfidential:
            requestBodySize = data.count
        case .bytes(let data):
            requestBodySize = data.count
            let shown = CurlCommand.redactedBody(data, contentType: request.headers["Content-Type"], redaction: redaction)
            let (text, encoding) = encode(shown, note: "request body", notes: &notes)
            postData = .init(mimeType: request.headers["Content-Type"] ?? "", text: text, encoding: encoding)
        case .file, .stream:
            requestBodySize = Int(request.body.length ?? -1)
            notes.append("request body not recorded (file or stream)")
        }
        let mimeType = response.headers["Content-Type"] ?? ""
        var content = HARDocument.Content(size: response.body.count, mimeType: mimeType)
        if response.bodyFile != nil {
            content.size = Int(response.metrics?.bytesReceived ?? -1)
            notes.append("response body written to a file, not recorded")
        } else if !response.body.isEmpty, !confidential {
            let shown = CurlCommand.redactedBody(response.body, contentType: mimeType, redaction: redaction)
            (content.text, content.encoding) = encode(shown, note: "response body", notes: &notes)
            // A server that echoes the request puts its secrets where no name rule looks.
            if content.encoding == nil, let text = content.text { content.text = secrets.masking(text) }
        }
        let metrics = response.metrics
        func ms(_ duration: Duration?) -> Double? {
            duration.map { $0.timeInterval * 1_000 }
        }
        let total = ms(elapsed) ?? 0
        var timings = HARDocument.Timings(wait: total, receive: 0)
        if let metrics {
            // curl's times run from the start of the transfer; HAR's phases are each on their own.
            let dns = ms(metrics.nameLookup), connect = ms(metrics.connect), tls = ms(metrics.tlsHandshake)
            let firstByte = ms(metrics.firstByte), end = ms(metrics.total) ?? total
            // HAR's -1 means "does not apply": no lookup, connect or handshake on a reused
            // connection (curl reports zeros for them), and no handshake without TLS.
            if metrics.reusedConnection != true {
                timings.dns = dns ?? -1
                timings.connect = connect.map { max(0, $0 - (dns ?? 0)) } ?? -1
                if request.url.scheme?.lowercased() == "https" {
                    timings.ssl = tls.map { max(0, $0 - (connect ?? 0)) } ?? -1
                }
            }
            let sent = tls ?? connect ?? dns ?? 0
            timings.wait = max(0, (firstByte ?? end) - sent)
            timings.receive = max(0, end - (firstByte ?? end))
        }
        return HARDocument.Entry(
            startedDateTime: Self.iso8601(started),
            time: total,
            request: .init(
                method: request.method.rawValue, url: url, httpVersion: version,
                headers: request.headers.map { .init(name: $0.name, value: redaction.value(ofHeader: $0.name, $0.value)) },
                queryString: query, postData: postData, bodySize: requestBodySize),
            response: .init(
                status: response.status.code, statusText: response.status.reasonPhrase, httpVersion: version,
                headers: response.headers.map { .init(name: $0.name, value: secrets.masking(redaction.value(ofHeader: $0.name, $0.value))) },
                content: content, redirectURL: response.headers["Location"].map { redaction.url(text: $0) } ?? "",
                bodySize: Int(metrics?.bytesReceived ?? Int64(response.body.count))),
            timings: timings,
            serverIPAddress: metrics?.remoteAddress,
            comment: notes.isEmpty ? nil : notes.joined(separator: "; ")
        )
    }

    /// UTF-8 text as it is, other bytes as base64; cut at the limit with a note.
    private func encode(_ data: Data, note: String, notes: inout [String]) -> (String, String?) {
        var data = data
        let limit = max(0, configuration.bodyLimit)  // a negative limit keeps nothing (`prefix` traps on it)
        if data.count > limit {
            notes.append("\(note) cut at \(limit) of \(data.count) bytes")
            data = data.prefix(limit)
        }
        if let text = String(data: data, encoding: .utf8) { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    /// `2026-11-30T02:21:07.123Z`.
    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
