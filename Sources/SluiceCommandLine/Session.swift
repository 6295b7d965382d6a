import Foundation
import Sluice

/// `--session NAME`: what one run leaves for the next against the same host, as httpie's
/// sessions do: the header items given (not `Content-*` or `If-*`), the `--auth` credentials,
/// and the cookies curl's jar holds. Kept in
/// `$XDG_CONFIG_HOME/sluice/sessions/HOST/NAME.json` (`~/.config` without it; `HOST_PORT` for
/// a port that is not the scheme's), a 0600 file in a 0700 folder: it is the one file `sluice`
/// writes credentials to, because the user asked it to keep them.
///
/// ```swift
/// var session = try Session.load(from: path)      // empty when there is no file yet
/// session.cookies = transport.cookies
/// try session.save(to: path)
/// ```
struct Session: Codable, Equatable {
    /// `--auth` as given, and how it is sent.
    struct Credentials: Codable, Equatable {
        var type: String
        var credentials: String
    }

    /// Header items, in the order given: `[name, value]`.
    var headers: [[String]] = []
    var auth: Credentials?
    /// Netscape cookie-file lines, as `CurlTransport.cookies` gives them.
    var cookies: [String] = []

    /// The file for session `name` and `url`'s host.
    static func path(name: String, url: URL, environment: [String: String]) -> String {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        let scheme = url.scheme?.lowercased() ?? "http"
        let host = (url.host ?? "").lowercased()
        let port = url.port.flatMap { $0 == (scheme == "https" ? 443 : 80) ? nil : $0 }
        return base + "/sluice/sessions/" + host + (port.map { "_\($0)" } ?? "") + "/" + name + ".json"
    }

    /// The session in `path`, or an empty one when there is no file.
    ///
    /// - Throws: ``UsageError`` naming the file when it cannot be read or is not a session.
    static func load(from path: String) throws(UsageError) -> Session {
        guard FileManager.default.fileExists(atPath: path) else { return Session() }
        do {
            return try JSONDecoder().decode(Session.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as DecodingError {
            throw UsageError("the session file \(path) is not a sluice session (\(Self.reason(error))): remove it or use another name")
        } catch {
            throw UsageError("cannot read the session file \(path): \((error as NSError).localizedDescription)")
        }
    }

    /// Writes it to `path` (0600, whole or not at all), making its folders (0700).
    func save(to path: String) throws(SluiceError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SluiceError(.writeFailed, "cannot make the session folder \(folder): \((error as NSError).localizedDescription)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(self)
        } catch {
            throw SluiceError(.writeFailed, "cannot encode the session for \(path)")
        }
        do {
            try PrivateFile.write(data, to: path)
        } catch {
            throw SluiceError(.writeFailed, error.description)
        }
    }

    /// `invocation` with what the session kept: its headers before the items given (an item
    /// of the same name wins), its credentials unless `--auth` or an `Authorization` item is
    /// given.
    func applied(to invocation: Invocation) -> Invocation {
        var invocation = invocation
        let given = Set(
            invocation.items.compactMap { item -> String? in
                guard case .header(let name, _) = item else { return nil }
                return name.lowercased()
            })
        let authorizationGiven = invocation.auth != nil || given.contains("authorization")
        let kept = headers.filter { pair in
            pair.count == 2 && !given.contains(pair[0].lowercased()) && !(authorizationGiven && pair[0].lowercased() == "authorization")
        }
        invocation.items = kept.map { RequestItem.header($0[0], $0[1]) } + invocation.items
        if !authorizationGiven, let auth {
            invocation.auth = auth.credentials
            invocation.authType = Invocation.AuthType(rawValue: auth.type) ?? .basic
        }
        return invocation
    }

    /// Takes what run `invocation` gave: its header items (replacing those of the same name),
    /// its `--auth`, and the jar's cookies.
    mutating func record(_ invocation: Invocation, cookies: [String]) {
        headers = Self.merged(headers, with: invocation.items)
        if let credentials = invocation.auth {
            auth = Credentials(type: (invocation.authType ?? .basic).rawValue, credentials: credentials)
        } else if invocation.items.contains(where: { if case .header(let name, _) = $0 { name.lowercased() == "authorization" } else { false } }) {
            auth = nil  // an Authorization item replaces the credentials kept
        }
        self.cookies = cookies
    }

    /// The header items a session keeps: not the body's (`Content-*`) or a condition (`If-*`).
    static func keeps(header name: String) -> Bool {
        let lowered = name.lowercased()
        return !lowered.hasPrefix("content-") && !lowered.hasPrefix("if-")
    }

    /// `headers` with `items`' kept headers replacing those of the same name (any case).
    static func merged(_ headers: [[String]], with items: [RequestItem]) -> [[String]] {
        let given = items.compactMap { item -> [String]? in
            guard case .header(let name, let value) = item, keeps(header: name) else { return nil }
            return [name, value]
        }
        let names = Set(given.map { $0[0].lowercased() })
        return headers.filter { $0.count == 2 && !names.contains($0[0].lowercased()) } + given
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted: "not valid JSON"
        case .keyNotFound(let key, _): "no \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "a wrong value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: "unreadable"
        }
    }
}
