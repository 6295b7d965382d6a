import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceDownload
import SluiceGzip
import SluiceHUD
import SluiceHeaders
import SluiceLogging
import SluiceMultipart
import SluiceRetry
import SluiceSigning

/// The request the items make: headers, query parameters, and a JSON, form or multipart body,
/// or the body piped to standard input.
extension SluiceCommand {
    func makeRequest(_ invocation: Invocation, url: URL) throws -> HTTPRequest {
        var headers = HTTPFields()
        var query: [String] = []
        var fields: [(String, String)] = []  // name, JSON text
        var fieldItems: [String] = []  // each field's item as typed, for errors
        var textFields: [(String, String)] = []
        var files: [(String, String)] = []
        var jsonOnly: String?  // the first item a form cannot carry
        for item in invocation.items {
            switch item {
            case .header(let name, let value):
                do {
                    try headers.append(name: name, value: value)
                } catch {
                    throw UsageError("the header \(String(reflecting: name)) cannot be sent: \(error.message)")
                }
            case .removeHeader:
                break  // left out below the chain: see `omittedFields`
            case .query(let name, let value):
                query.append(PercentEncoding.encodeStrictly(name) + "=" + PercentEncoding.encodeStrictly(value))
            case .field(let name, let value):
                fields.append((name, Self.jsonString(value)))
                fieldItems.append("\(name)=\(value)")
                textFields.append((name, value))
            case .fieldFromFile(let name, let path):
                let text = try Self.text(ofFile: path, for: "\(name)=@\(path)")
                fields.append((name, Self.jsonString(text)))
                fieldItems.append("\(name)=@\(path)")
                textFields.append((name, text))
            case .jsonField(let name, let raw):
                fields.append((name, try Self.checkedJSON(raw, for: "\(name):=\(raw)")))
                fieldItems.append("\(name):=\(raw)")
                jsonOnly = jsonOnly ?? "\(name):=\(raw)"
            case .jsonFieldFromFile(let name, let path):
                fields.append((name, try Self.checkedJSON(try Self.text(ofFile: path, for: "\(name):=@\(path)"), for: "\(name):=@\(path)")))
                fieldItems.append("\(name):=@\(path)")
                jsonOnly = jsonOnly ?? "\(name):=@\(path)"
            case .file(let name, let path):
                files.append((name, Self.expandingTilde(path)))
            }
        }
        if let credentials = invocation.auth, let field = try Self.authorization(credentials, type: invocation.authType ?? .basic) {
            guard !headers.contains("Authorization") else {
                throw UsageError("--auth and an Authorization: item both set the Authorization field: give one")
            }
            try headers.set(name: "Authorization", value: field)
        }
        var target = url
        if !query.isEmpty { target = try URLQuery.appending(query.joined(separator: "&"), to: url) }
        var body = HTTPBody.empty
        func setDefault(_ name: String, _ value: String) throws {
            if !headers.contains(name) { try headers.set(name: name, value: value) }
        }
        if !files.isEmpty {
            if let jsonOnly { throw UsageError("\(jsonOnly) is raw JSON, which a multipart form cannot carry (a field@file item is given)") }
            var form = MultipartFormData()
            for (name, value) in textFields { form.append(value, name: name) }
            for (name, path) in files { form.append(fileAt: URL(fileURLWithPath: path), name: name) }
            body = try form.makeBody()
            try setDefault("Content-Type", form.contentType)
        } else if !fields.isEmpty {
            if !invocation.ignoreStdin, Self.standardInputIsABody() {
                throw UsageError(
                    "a body piped to standard input and data items (field=value) cannot be mixed: give one, or -I (--ignore-stdin) "
                        + "to send the items")
            }
            switch invocation.bodyKind {
            case .json:
                var object = JSONPath.Object()
                for (item, (name, json)) in zip(fieldItems, fields) { try object.set(name, to: json, item: item) }
                body = .bytes(Data(object.text.utf8))
                try setDefault("Content-Type", "application/json")
                try setDefault("Accept", "application/json, */*;q=0.5")
            case .form:
                if let jsonOnly { throw UsageError("\(jsonOnly) is raw JSON, which a form cannot carry: leave out --form") }
                let encoded = textFields.map { PercentEncoding.encodeStrictly($0.0) + "=" + PercentEncoding.encodeStrictly($0.1) }.joined(separator: "&")
                body = .bytes(Data(encoded.utf8))
                try setDefault("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            }
        } else if !invocation.ignoreStdin, let piped = standardInput() {
            body = .bytes(piped)
            try setDefault("Content-Type", invocation.bodyKind == .form ? "application/x-www-form-urlencoded; charset=utf-8" : "application/json")
        }
        // As httpie: --json asks for JSON whatever the method, with or without a body.
        if invocation.jsonGiven { try setDefault("Accept", "application/json, */*;q=0.5") }
        let method = invocation.method ?? (body.length == 0 ? .get : .post)
        return HTTPRequest(method: method, url: target, headers: headers, body: body)
    }

    /// The `Authorization` value `--auth` makes, or nil for digest (curl answers the server's
    /// challenge). The credentials are never quoted in an error.
    static func authorization(_ credentials: String, type: Invocation.AuthType) throws(UsageError) -> String? {
        switch type {
        case .basic:
            guard let colon = credentials.firstIndex(of: ":"), colon != credentials.startIndex else {
                throw UsageError("--auth expects USER:PASSWORD for basic authentication")
            }
            return "Basic " + Data(credentials.utf8).base64EncodedString()
        case .bearer:
            guard !credentials.isEmpty, !credentials.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw UsageError("--auth expects a token without spaces for bearer authentication")
            }
            return "Bearer " + credentials
        case .digest:
            guard let colon = credentials.firstIndex(of: ":"), colon != credentials.startIndex else {
                throw UsageError("--auth expects USER:PASSWORD for digest authentication")
            }
            return nil
        }
    }

    /// The header fields `Name:` items leave out, even ones curl adds by default.
    static func omittedFields(_ invocation: Invocation) -> [String] {
        invocation.items.compactMap { if case .removeHeader(let name) = $0 { name } else { nil } }
    }

    /// Whether standard input is a pipe, a file or a socket: a body, as httpie takes it. A
    /// terminal is not, and neither is a character device such as /dev/null (what a job without
    /// input gets), so a script is not refused for its empty input.
    static func standardInputIsABody() -> Bool {
        var status = stat()
        guard isatty(STDIN_FILENO) == 0, fstat(STDIN_FILENO, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFREG || kind == S_IFSOCK
    }

    /// What was piped to standard input, or nil when it is a terminal or gave nothing.
    func standardInput() -> Data? {
        guard isatty(STDIN_FILENO) == 0 else { return nil }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return data.isEmpty ? nil : data
    }

    static func expandingTilde(_ path: String) -> String { NSString(string: path).expandingTildeInPath }

    /// The UTF-8 text of the file at `path`, for the item `item`.
    static func text(ofFile path: String, for item: String) throws(UsageError) -> String {
        let expanded = expandingTilde(path)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: expanded))
        } catch {
            throw UsageError("\(item): cannot read \(expanded): \((error as NSError).localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw UsageError("\(item): \(expanded) is not UTF-8 text") }
        return text
    }

    /// `raw` once it is checked to be one JSON value: sent as written (a number keeps its text:
    /// `1.10` is not rewritten as `1.1`), without the whitespace around it.
    static func checkedJSON(_ raw: String, for item: String) throws(UsageError) -> String {
        guard (try? JSONSerialization.jsonObject(with: Data(raw.utf8), options: [.fragmentsAllowed])) != nil else {
            throw UsageError("\(item) is not valid JSON")
        }
        return raw.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
