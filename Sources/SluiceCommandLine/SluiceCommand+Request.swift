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

/// The request the items make: headers, query parameters, a JSON or multipart body.
extension SluiceCommand {
    func makeRequest(_ invocation: Invocation, url: URL) throws -> HTTPRequest {
        var headers = HTTPFields()
        var query: [String] = []
        var fields: [(String, String)] = []  // name, JSON text
        var textFields: [(String, String)] = []
        var files: [(String, String)] = []
        var hasJSON = false
        for item in invocation.items {
            switch item {
            case .header(let name, let value):
                do {
                    try headers.append(name: name, value: value)
                } catch {
                    throw UsageError("the header \(String(reflecting: name)) cannot be sent: \(error.message)")
                }
            case .query(let name, let value):
                query.append(URLQuery.encode(name) + "=" + URLQuery.encode(value))
            case .field(let name, let value):
                fields.append((name, Self.jsonString(value)))
                textFields.append((name, value))
            case .jsonField(let name, let raw):
                guard let data = raw.data(using: .utf8),
                    let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
                    let normalized = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
                else {
                    throw UsageError("\(name):=\(raw) is not valid JSON")
                }
                fields.append((name, String(decoding: normalized, as: UTF8.self)))
                hasJSON = true
            case .file(let name, let path):
                files.append((name, NSString(string: path).expandingTildeInPath))
            }
        }
        var target = url
        if !query.isEmpty { target = try URLQuery.appending(query.joined(separator: "&"), to: url) }
        var body = HTTPBody.empty
        if !files.isEmpty {
            guard !hasJSON else { throw UsageError("field:=json items cannot go in a multipart form (a field@file item is given)") }
            var form = MultipartFormData()
            for (name, value) in textFields { form.append(value, name: name) }
            for (name, path) in files { form.append(fileAt: URL(fileURLWithPath: path), name: name) }
            body = try form.makeBody()
            if !headers.contains("Content-Type") { try headers.set(name: "Content-Type", value: form.contentType) }
        } else if !fields.isEmpty {
            let json = "{" + fields.map { Self.jsonString($0.0) + ": " + $0.1 }.joined(separator: ", ") + "}"
            body = .bytes(Data(json.utf8))
            if !headers.contains("Content-Type") { try headers.set(name: "Content-Type", value: "application/json") }
            if !headers.contains("Accept") { try headers.set(name: "Accept", value: "application/json, */*;q=0.5") }
        }
        let method = invocation.method ?? (body.length == 0 ? .get : .post)
        return HTTPRequest(method: method, url: target, headers: headers, body: body)
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
