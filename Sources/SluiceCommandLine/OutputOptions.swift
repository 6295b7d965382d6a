import Foundation
import Sluice

/// What `sluice` prints and how: httpie's `--print` letters (by default the response's head and
/// body on a terminal, the body alone when piped). Piped output is the body's exact bytes; on a
/// terminal, colours, JSON laid out from its tokens, and binary bodies kept off the screen.
struct OutputOptions {
    let requestHeaders: Bool
    let requestBody: Bool
    let responseHeaders: Bool
    let responseBody: Bool
    let colours: Bool
    /// Whether JSON is laid out (and other text escaped) rather than written as its bytes.
    let formats: Bool
    let isTerminal: Bool
    /// What the request's hidden fields and query values may show: what the user typed is shown
    /// as typed (so `--print` and `--offline` can be pasted and run), what middleware added is
    /// hidden; with `--redact`, everything secret is hidden.
    let shown: ShownSecrets

    init(_ invocation: Invocation, isTerminal: Bool = isatty(STDOUT_FILENO) == 1, typed: ShownSecrets = ShownSecrets()) {
        let letters = invocation.print ?? (invocation.offline ? "HB" : invocation.verbosity > 0 ? "HBhb" : isTerminal ? "hb" : "b")
        requestHeaders = letters.contains("H")
        requestBody = letters.contains("B")
        responseHeaders = letters.contains("h")
        responseBody = letters.contains("b")
        self.isTerminal = isTerminal
        let pretty = invocation.pretty ?? (isTerminal ? .all : .none)
        colours = (pretty == .all || pretty == .colors) && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        formats = pretty == .all || pretty == .format
        shown = invocation.redact ? ShownSecrets(hidesEverything: true) : typed
    }

    /// The secret values the user typed (header items, `--auth`, the URL and its `==` items),
    /// which `--print` and `--offline` show as they are.
    struct ShownSecrets {
        var fields: [(name: String, value: String)] = []
        var queryNames: Set<String> = []
        /// `--redact`: the response's hidden fields are hidden too.
        var hidesEverything = false

        /// `value` of the field `name` as it may be shown.
        func value(ofHeader name: String, _ value: String) -> String {
            let typed = fields.contains { $0.name.lowercased() == name.lowercased() && $0.value == value }
            return typed ? value : Redaction.default.value(ofHeader: name, value)
        }

        /// A request line with the values of secret query parameters the user did not type hidden.
        func requestLine(_ line: String) -> String {
            let names = Redaction.default
            let redaction = Redaction(
                headerNames: names.headerNames, parameterNames: names.parameterNames.subtracting(queryNames),
                queryParameterNames: names.queryParameterNames.subtracting(queryNames))
            return redaction.requestLine(line)
        }
    }

    private func paint(_ text: String, _ code: String) -> String {
        colours ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// `HTTP/1.1 200 OK` and the fields, then an empty line.
    func head(of response: HTTPResponse) -> String {
        let version = response.metrics?.httpVersion ?? "1.1"
        let code = response.status.code
        let colour = code >= 500 ? "31" : code >= 400 ? "33" : code >= 300 ? "36" : "32"
        // What the server sent is shown with its control characters escaped: a reason phrase or
        // a value could otherwise drive the terminal.
        var text = paint("HTTP/\(version) \(response.status)".escapingControlCharacters(), "1;\(colour)") + "\n"
        for field in response.headers {
            // With --redact, what the server sets (a Set-Cookie, a token in a field) is hidden too.
            let value = shown.hidesEverything ? Redaction.default.value(ofHeader: field.name, field.value) : field.value
            text += paint(field.name.escapingControlCharacters(), "36") + ": " + value.escapingControlCharacters() + "\n"
        }
        return text + "\n"
    }

    /// The request: its head as the transport wrote it (`sentHead`, from
    /// `TransferMetrics.requestHeadParts`), or, when nothing was sent (`--offline`), the head curl
    /// would write: its `Host` with a port that is not the scheme's, and curl's `User-Agent`,
    /// `Accept` and `Content-Length` where the request has none. Then (with `B`) the body.
    /// Credentials and secret query values are shown as the user typed them and hidden where
    /// middleware added them (all hidden with `--redact`), and what came from outside is shown
    /// with its control characters escaped.
    func describe(
        request: HTTPRequest, sentHead: (requestLine: String, fields: [(name: String, value: String)])?, userAgent: String?
    ) -> String {
        var text = ""
        if requestHeaders {
            let (requestLine, fields) = sentHead ?? Self.head(curlWouldSend: request, userAgent: userAgent)
            text += paint(shown.requestLine(requestLine).escapingControlCharacters(), "1;34") + "\n"
            for (name, value) in fields {
                text += paint(name.escapingControlCharacters(), "36") + ": " + shown.value(ofHeader: name, value).escapingControlCharacters() + "\n"
            }
            text += "\n"
        }
        if requestBody {
            switch request.body {
            case .empty: break
            case .bytes(let data): text += TerminalText.escape(bytes: data, keepingLineBreaks: true) + "\n\n"
            case .file(let url): text += "(the file \(url.path.escapingControlCharacters()))\n\n"
            case .stream: text += "(a streamed body of \(request.body.length.map { "\($0) bytes" } ?? "unknown length"))\n\n"
            }
        }
        return text
    }

    /// The head curl would write for `request`: its request line and fields.
    static func head(curlWouldSend request: HTTPRequest, userAgent: String?) -> (requestLine: String, fields: [(name: String, value: String)]) {
        let url = request.url
        let target = (url.path.isEmpty ? "/" : url.path(percentEncoded: true)) + (url.query(percentEncoded: true).map { "?" + $0 } ?? "")
        var fields: [(name: String, value: String)] = []
        if !request.headers.contains("Host") {
            let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
            fields.append(("Host", (url.host ?? "") + (url.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")))
        }
        if let userAgent, !request.headers.contains("User-Agent") { fields.append(("User-Agent", userAgent)) }
        if !request.headers.contains("Accept") { fields.append(("Accept", "*/*")) }
        fields += request.headers.map { ($0.name, $0.value) }
        if !request.headers.contains("Content-Length"), let length = request.body.length, length > 0 || [.post, .put, .patch].contains(request.method) {
            fields.append(("Content-Length", String(length)))
        }
        return ("\(request.method) \(target) HTTP/1.1", fields)
    }

    /// The body. Piped or redirected, its exact bytes. On a terminal: JSON laid out from its
    /// tokens (numbers, escapes and key order as sent), text with its control characters escaped
    /// (line breaks and tabs kept), and binary data described rather than written.
    func body(of response: HTTPResponse) -> Data {
        let body = response.body
        guard isTerminal || formats, !body.isEmpty else { return body }
        let type = response.headers["Content-Type"]?.lowercased() ?? ""
        if formats, type.contains("json"), let pretty = JSONPrettyPrinter(colours: colours).format(body) {
            return Data((pretty + "\n").utf8)
        }
        guard isTerminal else { return body }
        guard !body.contains(0), let text = String(data: body, encoding: .utf8) else {
            return Data("(\(body.count) bytes of binary data not shown on a terminal: use --download FILE or redirect the output)\n".utf8)
        }
        // CRLF line ends are shown as line ends; a lone CR, like any other control, is escaped.
        let shown = text.replacing("\r\n", with: "\n").escapingControlCharacters(keepingLineBreaks: true)
        return Data((shown.hasSuffix("\n") ? shown : shown + "\n").utf8)
    }
}
