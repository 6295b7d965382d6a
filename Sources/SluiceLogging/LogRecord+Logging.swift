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

    var milliseconds: Double {
        elapsed.timeInterval * 1_000
    }

    // MARK: Text

    func text(_ configuration: LoggingMiddleware.Configuration, colours: Bool) -> String {
        let redaction = configuration.redaction
        var line = ""
        line.reserveCapacity(160)
        Self.paint(request.method.rawValue, "1", colours, into: &line)
        line += " "
        line += redaction.url(request.url)
        line += " → "
        switch outcome {
        case .response(let response):
            let code = response.status.code
            Self.paint(response.status.description, code >= 500 ? "31" : code >= 400 ? "33" : code >= 300 ? "36" : "32", colours, into: &line)
            line += ", "
            line += Self.size(Self.byteCount(response))
            line += ", "
            line += Self.time(milliseconds)
            line += response.attempts == 1 ? ", 1 attempt, " : ", \(response.attempts) attempts, "
            line += response.source.description
        case .failure(let error):
            Self.paint("failed: " + Self.describe(error), "31", colours, into: &line)
            line += ", "
            line += Self.time(milliseconds)
        case .cancelled:
            Self.paint("cancelled", "33", colours, into: &line)
            line += " after "
            line += Self.time(milliseconds)
        }
        guard trace != nil || configuration.level >= .headers else { return line }
        var lines = [line]
        if let trace {
            lines += trace.description.split(separator: "\n").map { "  " + $0 }
        }
        guard configuration.level >= .headers else { return lines.joined(separator: "\n") }
        lines += request.headers.map { "> \($0.name): \(redaction.value(ofHeader: $0.name, $0.value))" }
        if configuration.level >= .body {
            lines += Self.requestBody(request, configuration).map { "> " + $0 }
        }
        if case .response(let response) = outcome {
            lines += response.headers.map { "< \($0.name): \(redaction.value(ofHeader: $0.name, $0.value))" }
            if configuration.level >= .body {
                lines += Self.responseBody(response, configuration).map { "< " + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: JSON lines

    /// One JSON object, keys in sorted order, written by hand: `JSONSerialization` costs ~100 µs
    /// a record on Linux, far over the logger's budget.
    func jsonLine(_ configuration: LoggingMiddleware.Configuration) -> String {
        let redaction = configuration.redaction
        var json = JSONLineWriter()
        let response: HTTPResponse? = if case .response(let response) = outcome { response } else { nil }
        if let response { json.number("attempts", response.attempts) }
        if let response { json.number("bytes", Self.byteCount(response)) }
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
        json.raw("milliseconds", Self.decimal(milliseconds, places: 3))
        switch outcome {
        case .response: json.string("outcome", "ok")
        case .failure: json.string("outcome", "failed")
        case .cancelled: json.string("outcome", "cancelled")
        }
        if configuration.level >= .body {
            json.string("requestBody", Self.requestBody(request, configuration).joined(separator: "\n"))
        }
        if configuration.level >= .headers {
            json.pairs("requestHeaders", request.headers.map { ($0.name, redaction.value(ofHeader: $0.name, $0.value)) })
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
                inner.raw("microseconds", Self.decimal(Self.microseconds(span.ownTime), places: 1))
                inner.string("stage", span.stage.description)
            }
        }
        json.string("url", redaction.url(request.url))
        return json.finish()
    }

    // MARK: Pieces

    /// Appends `text`, in the ANSI colour `code` when `colours`.
    static func paint(_ text: String, _ code: String, _ colours: Bool, into line: inout String) {
        if colours {
            line += "\u{1B}["
            line += code
            line += "m"
            line += text
            line += "\u{1B}[0m"
        } else {
            line += text
        }
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
        switch bytes {
        case ..<1_024: "\(bytes) B"
        case ..<(1 << 20): decimal(Double(bytes) / 1_024, places: 1) + " KB"
        default: decimal(Double(bytes) / 1_048_576, places: 1) + " MB"
        }
    }

    /// `0.4 ms` below 10 ms, whole milliseconds above.
    static func time(_ milliseconds: Double) -> String {
        milliseconds < 10 ? decimal(milliseconds, places: 1) + " ms" : "\(Int(milliseconds.rounded())) ms"
    }

    static func microseconds(_ duration: Duration) -> Double {
        duration.timeInterval * 1e6
    }

    /// `value` rounded to `places` decimals, trailing zeros dropped (`35`, `0.4`, `1.25`), without
    /// `String(format:)`, which costs microseconds on Linux.
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        var text = (value < 0 && scaled != 0 ? "-" : "") + String(scaled / scale)
        var fraction = scaled % scale
        guard fraction != 0 else { return text }
        var digits = places
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let fractionText = String(fraction)
        text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        return text
    }

    static func requestBody(_ request: HTTPRequest, _ configuration: LoggingMiddleware.Configuration) -> [String] {
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
        return body(response.body, contentType: response.headers["Content-Type"], configuration)
    }

    /// JSON pretty-printed (redacted), forms redacted, other text as it is, up to the limit;
    /// anything else as its size.
    static func body(_ data: Data, contentType: String?, _ configuration: LoggingMiddleware.Configuration) -> [String] {
        guard !data.isEmpty else { return [] }
        let type = contentType?.lowercased() ?? ""
        let limit = configuration.bodyLimit
        let isJSON = type.hasPrefix("application/json") || type.contains("+json")
        if isJSON, data.count <= limit,
           let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
           let pretty = try? JSONSerialization.data(
               withJSONObject: configuration.redaction.json(object),
               options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]) {
            return String(decoding: pretty, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        let isText = isJSON || type.hasPrefix("text/") || type.contains("xml") || type.hasPrefix("application/x-www-form-urlencoded")
            || (type.isEmpty && !data.prefix(limit).contains { $0 < 0x09 })
        let shown = data.prefix(limit)
        guard isText, var text = String(data: shown, encoding: .utf8) ?? (shown.count < data.count ? String(data: shown.dropLast(3), encoding: .utf8) : nil) else {
            return ["(binary, \(size(Int64(data.count))))"]
        }
        if type.hasPrefix("application/x-www-form-urlencoded") { text = configuration.redaction.form(text) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if data.count > shown.count { lines.append("… (\(data.count - shown.count) more bytes)") }
        return lines
    }
}
