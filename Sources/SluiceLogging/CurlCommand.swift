import Foundation
import Sluice

/// "Copy as curl": a request as a `curl` command line you can paste into a shell, with secrets
/// redacted unless you opt in.
///
/// ```swift
/// import Sluice
/// import SluiceLogging
///
/// print(CurlCommand(request))
/// // curl -X POST 'https://api.example.com/login' -H 'Authorization: <redacted>' --data-binary '{"user":"ann"}'
/// print(CurlCommand(request, redaction: .disabled))     // the real values, for a local replay
/// ```
///
/// Memory bodies that are text go inline in single quotes; other bytes are piped in through
/// `printf` with octal escapes, so NUL bytes survive; file bodies are read by curl with `@path`;
/// a stream body cannot be replayed and is left out, which a shell comment at the end says.
public struct CurlCommand: Sendable, CustomStringConvertible {
    /// The command line.
    public let command: String

    /// The curl command for `request`, with `redaction`'s secrets hidden and the request's own
    /// (`HTTPRequest.redaction`); `.disabled` shows every value. It takes a policy of its own
    /// because it is made outside any client (a debugger, a test), where no stage applies one.
    public init(_ request: HTTPRequest, redaction: Redaction = .default) {
        let redaction = redaction.adding(request.redaction)
        var words = ["curl"]
        var prefix = ""
        var suffix = ""
        let hasBody: Bool
        switch request.body {
        case .empty: hasBody = false
        default: hasBody = true
        }
        switch request.method {
        case .get where !hasBody: break
        case .head: words.append("--head")
        default: words += ["-X", Self.quoted(request.method.rawValue)]
        }
        words.append(Self.quoted(redaction.url(request.url)))
        for field in request.headers {
            let value = redaction.value(ofHeader: field.name, field.value)
            // curl drops a field given as "Name:"; "Name;" sends it empty.
            words += ["-H", Self.quoted(value.isEmpty ? "\(field.name);" : "\(field.name): \(value)")]
        }
        switch request.body {
        case .empty:
            break
        case .bytes(let data):
            let shown = Self.redactedBody(data, contentType: request.headers["Content-Type"], redaction: redaction)
            if let text = String(data: shown, encoding: .utf8), !text.utf8.contains(0) {
                // curl reads `--data-binary @path` as a file to upload: a body that starts with
                // `@` goes as --data-raw, as browsers' devtools write it, so pasting never sends a
                // local file.
                words += [text.hasPrefix("@") ? "--data-raw" : "--data-binary", Self.quoted(text)]
            } else {
                prefix = "printf '" + shown.map { String(format: "\\%03o", $0) }.joined() + "' | "
                words += ["--data-binary", "@-"]
            }
        case .file(let url):
            words += ["--data-binary", Self.quoted("@" + url.path)]
        case .stream:
            suffix = "  # the request's stream body is not shown: it can be read only once"
        }
        command = prefix + words.joined(separator: " ") + suffix
    }

    public var description: String { command }

    /// `'text'`, with each `'` written as `'\''`.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The body with hidden form or JSON values replaced, when its type says it is one of those.
    /// A JSON body with nothing to hide keeps its bytes; one with something to hide is re-encoded
    /// with sorted keys.
    static func redactedBody(_ data: Data, contentType: String?, redaction: Redaction) -> Data {
        guard redaction.isEnabled, let type = contentType?.lowercased() else { return data }
        if type.hasPrefix("application/x-www-form-urlencoded"), let text = String(data: data, encoding: .utf8) {
            return Data(redaction.form(text).utf8)
        }
        if type.hasPrefix("application/json") || type.contains("+json"),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            JSONSerialization.isValidJSONObject(object), redaction.hidesAnyKey(in: object)
        {
            let redacted = redaction.json(object)
            if let encoded = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes]) {
                return encoded
            }
        }
        return data
    }
}
