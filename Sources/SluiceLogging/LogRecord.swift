import Foundation
import Sluice

/// One finished call, rendered as text or a JSON line.
struct LogRecord {
    enum Outcome {
        case response(HTTPResponse)
        case failure(any Error)
        case cancelled
    }

    let request: HTTPRequest
    let outcome: Outcome
    let elapsed: Duration
    /// The stages inside the logger, when tracing is on.
    let trace: PipelineTrace?
    /// For a streamed body, the bytes the reader got.
    var streamedBytes: Int64? = nil
    /// Whether the reader let a streamed body go (or was cancelled) before its end: the answer
    /// still came, and its status is what the line says.
    var bodyLetGo = false
    /// The call's ``RequestContext/requestID``.
    var requestID: UInt64 = 0

    var milliseconds: Double {
        elapsed.timeInterval * 1_000
    }

    // MARK: Text

    func text(_ configuration: LoggingMiddleware.Configuration, colours: Bool) -> String {
        let redaction = configuration.redaction
        var line = LineBuffer()
        line.paint("1", colours) { $0.append(contentsOf: request.method.rawValue) }
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: redaction.url(text: request.urlText).escapingControlCharacters())
        if let operation = request.operationName {
            line.append(" (")
            line.append(contentsOf: operation.escapingControlCharacters())
            line.append(")")
        }
        line.append(" -> ")
        switch outcome {
        case .response(let response):
            let status = response.status
            line.paint(status.code >= 500 ? "31" : status.code >= 400 ? "33" : status.code >= 300 ? "36" : "32", colours) {
                $0.append(integer: Int64(status.code))
                guard !status.reasonPhrase.isEmpty else { return }
                $0.append(UInt8(ascii: " "))
                $0.append(contentsOf: status.reasonPhrase.escapingControlCharacters())
            }
            line.append(", ")
            line.append(size: byteCount(response))
            line.append(", ")
            line.append(milliseconds: milliseconds)
            line.append(", ")
            line.append(contentsOf: response.source.description)
            if !response.attachments.isEmpty { Self.append(response.attachments.reported, to: &line) }
            if bodyLetGo { line.append(", body let go before its end") }
        case .failure(let error):
            line.paint("31", colours) {
                $0.append("failed: "); $0.append(contentsOf: Self.describe(error).escapingControlCharacters())
            }
            line.append(", ")
            line.append(milliseconds: milliseconds)
        case .cancelled:
            line.paint("33", colours) { $0.append("cancelled") }
            line.append(" after ")
            line.append(milliseconds: milliseconds)
        }
        if let trace {
            for stage in trace.description.split(separator: "\n") {
                line.append("\n  ")
                line.append(contentsOf: stage)
            }
        }
        guard configuration.level >= .headers else { return line.string }
        if let (requestLine, fields) = sentHead {
            // What the transport wrote: the request line and every field curl added.
            line.append("\n> ")
            line.append(contentsOf: redaction.requestLine(requestLine).escapingControlCharacters())
            Self.append(fields, marker: "\n> ", redaction, to: &line)
        } else {
            Self.append(request.headers.map { ($0.name, $0.value) }, marker: "\n> ", redaction, to: &line)
        }
        if configuration.level >= .body {
            let confidential = if case .response(let response) = outcome { response.requestBodyWasConfidential } else { false }
            Self.append(Self.requestBody(request, configuration, confidential: confidential), marker: "\n> ", to: &line)
        }
        if case .response(let response) = outcome {
            Self.append(response.headers.map { ($0.name, $0.value) }, marker: "\n< ", redaction, to: &line)
            if configuration.level >= .body {
                Self.append(Self.responseBody(response, configuration), marker: "\n< ", to: &line)
            }
        }
        return line.string
    }

    /// One line per field, `marker` (a newline and `>` or `<`) first, hidden values redacted.
    private static func append(_ fields: [(String, String)], marker: StaticString, _ redaction: Redaction, to line: inout LineBuffer) {
        for (name, value) in fields {
            line.append(marker)
            line.append(contentsOf: name.escapingControlCharacters())
            line.append(": ")
            line.append(contentsOf: redaction.value(ofHeader: name, value).escapingControlCharacters())
        }
    }

    /// The request's head as the transport wrote it, when it records heads: its request line and
    /// fields, with `Host`, `User-Agent` and the rest that curl added.
    var sentHead: (requestLine: String, fields: [(name: String, value: String)])? {
        guard case .response(let response) = outcome else { return nil }
        return response.metrics?.requestHeadParts
    }

    /// What modules attached and report (``Sluice/ReportedAttachmentKey``), each after a comma:
    /// a count as `retries 2`, a true flag as its name, a label as `cache hit`.
    private static func append(_ reported: [(name: String, value: ReportedValue)], to line: inout LineBuffer) {
        for (name, value) in reported {
            switch value {
            case .count(let count):
                line.append(", ")
                line.append(contentsOf: name.escapingControlCharacters())
                line.append(UInt8(ascii: " "))
                line.append(integer: Int64(count))
            case .flag(let flag) where flag:
                line.append(", ")
                line.append(contentsOf: name.escapingControlCharacters())
            case .label(let label):
                line.append(", ")
                line.append(contentsOf: name.escapingControlCharacters())
                line.append(UInt8(ascii: " "))
                line.append(contentsOf: label.escapingControlCharacters())
            case .flag: break
            }
        }
    }

    private static func append(_ bodyLines: [String], marker: StaticString, to line: inout LineBuffer) {
        for text in bodyLines {
            line.append(marker)
            line.append(contentsOf: text.escapingControlCharacters(keepingLineBreaks: true))
        }
    }

    // MARK: JSON lines

    /// One JSON object, keys in sorted order, written by hand: `JSONSerialization` costs ~100 µs
    /// a record on Linux, far over the logger's budget.
    func jsonLine(_ configuration: LoggingMiddleware.Configuration) -> String {
        let redaction = configuration.redaction
        var json = JSONLineWriter()
        let response: HTTPResponse? = if case .response(let response) = outcome { response } else { nil }
        if response != nil, bodyLetGo { json.bool("bodyLetGo", true) }
        if let response { json.number("bytes", byteCount(response)) }
        switch outcome {
        case .failure(let error as SluiceError):
            json.object("error") { inner in
                inner.string("code", error.code.rawValue)
                inner.string("message", error.message)
                if let stage = error.stage { inner.string("stage", stage.description) }
            }
        case .failure(let error):
            json.object("error") { $0.string("message", String(describing: error)) }
        default: break
        }
        json.string("method", request.method.rawValue)
        json.decimal("milliseconds", milliseconds, places: 3)
        if let operation = request.operationName { json.string("operation", operation) }
        switch outcome {
        case .response: json.string("outcome", "ok")
        case .failure: json.string("outcome", "failed")
        case .cancelled: json.string("outcome", "cancelled")
        }
        if let response, !response.attachments.isEmpty {
            let reported = response.attachments.reported
            if !reported.isEmpty { json.reported("reported", reported) }  // keys stay sorted
        }
        if configuration.level >= .body {
            json.string(
                "requestBody",
                Self.requestBody(request, configuration, confidential: response?.requestBodyWasConfidential ?? false).joined(separator: "\n"))
        }
        if configuration.level >= .headers {
            if let (requestLine, fields) = sentHead {
                json.pairs("requestHeaders", fields.map { ($0.name, redaction.value(ofHeader: $0.name, $0.value)) })
                json.string("requestLine", redaction.requestLine(requestLine))  // keys stay sorted
            } else {
                json.pairs("requestHeaders", request.headers.map { ($0.name, redaction.value(ofHeader: $0.name, $0.value)) })
            }
        }
        if let response, configuration.level >= .body {
            json.string("responseBody", Self.responseBody(response, configuration).joined(separator: "\n"))
        }
        if let response, configuration.level >= .headers {
            json.pairs("responseHeaders", response.headers.map { ($0.name, redaction.value(ofHeader: $0.name, $0.value)) })
        }
        if let response { json.string("source", response.source.description) }
        if let response { json.number("status", response.status.code) }
        if let trace {
            json.array("trace", trace.spans) { inner, span in
                inner.number("calls", span.calls)
                inner.decimal("microseconds", Self.microseconds(span.ownTime), places: 1)
                inner.string("stage", span.stage.description)
            }
        }
        json.string("url", redaction.url(text: request.urlText))
        return json.finish()
    }

    // MARK: Pieces

    func byteCount(_ response: HTTPResponse) -> Int64 {
        streamedBytes ?? Self.byteCount(response)
    }

    static func byteCount(_ response: HTTPResponse) -> Int64 {
        if response.bodyFile != nil { return response.metrics?.bytesReceived ?? 0 }
        return Int64(response.body.count)
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? SluiceError else { return String(describing: error) }
        let stage = error.stage.map { " (\($0))" } ?? ""
        return "\(error.code)\(stage): \(error.message)"
    }

    /// `17 B`, `1.2 KB`, `3.4 MB`.
    static func size(_ bytes: Int64) -> String {
        var text = LineBuffer(capacity: 16)
        text.append(size: bytes)
        return text.string
    }

    static func microseconds(_ duration: Duration) -> Double {
        duration.timeInterval * 1e6
    }

    /// The lines showing the request's body; one line saying it is not shown when it went out
    /// end-to-end encrypted (the log keeps the plaintext out, as a HAR file does).
    static func requestBody(_ request: HTTPRequest, _ configuration: LoggingMiddleware.Configuration, confidential: Bool) -> [String] {
        if confidential, request.body.length != 0 { return ["(body not shown: it went over the wire end-to-end encrypted)"] }
        switch request.body {
        case .empty: return []
        case .bytes(let data): return body(data, contentType: request.headers["Content-Type"], configuration)
        case .file(let url):
            let length = request.body.length.map { ", \(size($0))" } ?? ""
            return ["(file \(url.path)\(length), not read)"]
        case .stream:
            let length = request.body.length.map { size($0) } ?? "length unknown"
            return ["(stream body, \(length), not read)"]
        }
    }

    static func responseBody(_ response: HTTPResponse, _ configuration: LoggingMiddleware.Configuration) -> [String] {
        if let file = response.bodyFile { return ["(written to \(file.path), \(size(byteCount(response))))"] }
        if response.bodiesAreConfidential, !response.body.isEmpty { return ["(body not shown: it came over the wire end-to-end encrypted)"] }
        return body(response.body, contentType: response.headers["Content-Type"], configuration)
    }

    /// The bytes as they were sent or received, up to the limit: JSON with the values of hidden
    /// keys replaced where they stand (pretty-printed only on a terminal), forms with hidden
    /// parameters replaced, other text as it is; anything else as its size.
    static func body(_ data: Data, contentType: String?, _ configuration: LoggingMiddleware.Configuration) -> [String] {
        guard !data.isEmpty else { return [] }
        let type = contentType?.lowercased() ?? ""
        let limit = max(0, configuration.bodyLimit)  // a negative limit shows nothing (`prefix` traps on it)
        let isJSON = type.hasPrefix("application/json") || type.contains("+json")
        if isJSON, !configuration.sink.isTerminal, data.count <= 1 << 22, let raw = String(data: data, encoding: .utf8) {
            guard let redacted = configuration.redaction.jsonText(raw) else {
                return ["(JSON whose hidden field could not be read, \(size(Int64(data.count))))"]
            }
            return lines(of: Data(redacted.utf8), limit: limit)
        }
        if isJSON, data.count <= limit,
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let pretty = try? JSONSerialization.data(
                withJSONObject: configuration.redaction.json(object),
                options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        {
            return String(decoding: pretty, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        let isText =
            isJSON || type.hasPrefix("text/") || type.contains("xml") || type.hasPrefix("application/x-www-form-urlencoded")
            || (type.isEmpty && !data.prefix(limit).contains { $0 < 0x09 })
        let shown = data.prefix(limit)
        guard isText, var text = String(data: shown, encoding: .utf8) ?? (shown.count < data.count ? String(data: shown.dropLast(3), encoding: .utf8) : nil)
        else {
            return ["(binary, \(size(Int64(data.count))))"]
        }
        if type.hasPrefix("application/x-www-form-urlencoded") { text = configuration.redaction.form(text) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if data.count > shown.count { lines.append("… (\(data.count - shown.count) more bytes)") }
        return lines
    }

    /// UTF-8 text cut at `limit` bytes (at a character's start), in lines, with what was left out said.
    private static func lines(of data: Data, limit: Int) -> [String] {
        var cut = max(0, min(limit, data.count))
        while cut > 0, cut < data.count, data[data.startIndex + cut] & 0xC0 == 0x80 { cut -= 1 }
        var lines = String(decoding: data.prefix(cut), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if data.count > cut { lines.append("… (\(data.count - cut) more bytes)") }
        return lines
    }
}
