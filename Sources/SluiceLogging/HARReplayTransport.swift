import Foundation
import Sluice

extension SluiceError.Code {
    /// ``HARReplayTransport`` has no recorded entry for the request; the message lists the nearest.
    public static let replayMiss = SluiceError.Code(rawValue: "replayMiss")
    /// A HAR file that cannot be read or is not HAR 1.2.
    public static let invalidHAR = SluiceError.Code(rawValue: "invalidHAR")
}

extension ResponseSource {
    /// Answered by ``HARReplayTransport`` from a recording.
    public static let replay = ResponseSource(rawValue: "replay")
}

/// A transport that answers from a HAR file, so tests run without a network and always get the
/// same answers. A request matches an entry with the same method, the same URL and the same body
/// (compared byte for byte, after the same redaction the recorder applied, so a recorded
/// `token=<redacted>` still matches). Several entries for one request are served in order, the
/// last one again after that. A request with no entry fails with `.replayMiss`, naming the
/// nearest recorded entries and what differs.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceLogging
///
/// let transport = try HARReplayTransport(contentsOf: URL(fileURLWithPath: "Tests/Fixtures/orders.har"))
/// let client = Client(transport: transport)
/// let orders = try await client.get("https://api.example.com/orders")
/// ```
public final class HARReplayTransport: HTTPTransport {
    private struct Recorded {
        let method: String
        let url: String
        let body: Data
        let response: HTTPResponse
    }

    private let recorded: [Recorded]
    private let redaction: Redaction
    /// How many times each entry's request was answered, to serve repeats in order.
    private let served = Locked<[Int: Int]>([:])

    /// - Parameters:
    ///   - url: the HAR file.
    ///   - redaction: what the recording hid (`Redaction.default` unless it was recorded with
    ///     another), applied to incoming requests before matching. The recording's own, not the
    ///     client's: a request matches only when its secrets are hidden as the file hid them.
    public convenience init(contentsOf url: URL, redaction: Redaction = .default) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SluiceError(.invalidHAR, "cannot read HAR file \(url.path): \(error.localizedDescription)", underlying: error)
        }
        try self.init(data: data, redaction: redaction)
    }

    /// Replays the HAR document in `data`, matching requests after `redaction` hides their secrets
    /// (the recording's policy, as in ``init(contentsOf:redaction:)``).
    public init(data: Data, redaction: Redaction = .default) throws {
        let document: HARDocument
        do {
            document = try JSONDecoder().decode(HARDocument.self, from: data)
        } catch {
            throw SluiceError(.invalidHAR, "not a HAR 1.2 file: \(Self.describe(error))", underlying: error)
        }
        self.redaction = redaction
        recorded = try document.log.entries.enumerated().map { index, entry in
            func decode(_ text: String?, _ encoding: String?) throws -> Data {
                guard let text else { return Data() }
                guard encoding == "base64" else { return Data(text.utf8) }
                guard let data = Data(base64Encoded: text) else {
                    throw SluiceError(.invalidHAR, "entry \(index): body marked base64 is not base64")
                }
                return data
            }
            var fields = HTTPFields()
            for header in entry.response.headers {
                do { try fields.append(name: header.name, value: header.value) } catch {
                    throw SluiceError(.invalidHAR, "entry \(index): response header \(header.name): \(error)")
                }
            }
            let status = HTTPStatus(code: entry.response.status, reasonPhrase: entry.response.statusText.isEmpty ? nil : entry.response.statusText)
            var response = HTTPResponse(status: status, headers: fields, body: try decode(entry.response.content.text, entry.response.content.encoding))
            response.source = .replay
            return Recorded(
                method: entry.request.method, url: entry.request.url,
                body: try decode(entry.request.postData?.text, entry.request.postData?.encoding), response: response)
        }
    }

    /// How many entries the file holds.
    public var entryCount: Int { recorded.count }

    public func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        // As the recorder hid it: its redaction and the request's own policy.
        let redaction = self.redaction.adding(request.redaction)
        let url = redaction.url(request.url)
        let body: Data
        switch request.body {
        case .bytes(let data): body = CurlCommand.redactedBody(data, contentType: request.headers["Content-Type"], redaction: redaction)
        case .empty: body = Data()
        case .file, .stream: body = try await request.body.collect()
        }
        let matches = recorded.indices.filter {
            recorded[$0].method == request.method.rawValue && recorded[$0].url == url && recorded[$0].body == body
        }
        guard !matches.isEmpty else { throw miss(request.method.rawValue, url, body, redaction) }
        let index = served.withLock { served -> Int in
            let key = matches[0]
            let count = served[key, default: 0]
            served[key] = count + 1
            return matches[min(count, matches.count - 1)]
        }
        var response = recorded[index].response
        response.request = request
        return response
    }

    /// The error for a request with no entry: up to three nearest entries, and what differs.
    private func miss(_ method: String, _ url: String, _ body: Data, _ redaction: Redaction) -> SluiceError {
        let wanted = URLComponents(string: url)
        let ranked = recorded.enumerated().map { index, entry -> (index: Int, score: Int, differs: [String]) in
            let other = URLComponents(string: entry.url)
            var score = 0
            var differs: [String] = []
            func compare(_ same: Bool, _ weight: Int, _ name: String) {
                if same { score += weight } else { differs.append(name) }
            }
            compare(entry.method == method, 8, "method")
            compare(other?.host == wanted?.host && other?.port == wanted?.port, 4, "host")
            compare(other?.path == wanted?.path, 4, "path")
            compare(other?.percentEncodedQuery == wanted?.percentEncodedQuery, 2, "query")
            compare(entry.body == body, 1, "body")
            return (index, score, differs)
        }.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }
        let bodyText = body.isEmpty ? "no body" : "body \(body.count) bytes"
        // URLs as Redaction shows them: the recording itself is redacted, the request may not be.
        func shown(_ text: String) -> String { URL(string: text).map { redaction.url($0) } ?? text }
        var message = "no recorded entry for \(method) \(shown(url)) (\(bodyText))"
        if ranked.isEmpty {
            message += "; the HAR file has no entries"
        } else {
            message += "; nearest recorded:"
            for (rank, candidate) in ranked.prefix(3).enumerated() {
                let entry = recorded[candidate.index]
                message += "\n  \(rank + 1). \(entry.method) \(shown(entry.url)) (\(candidate.differs.joined(separator: ", ")) differs)"
            }
        }
        return SluiceError(.replayMiss, message)
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "missing \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "wrong type at \(path(context))"
        case .dataCorrupted(let context)?:
            return "invalid JSON (\(context.debugDescription))"
        default:
            return String(describing: error)
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        guard !context.codingPath.isEmpty else { return "the top level" }
        return context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }
}
