import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceHeaders
import SluiceLogging
import SluiceRetry
import SluiceSigning
import SluiceTestSupport
import SluiceTesting
import Testing

/// The audit: a client with every stage that writes something (two loggers, a HAR recorder, a
/// SQLite cache) and the `sluice` binary send requests that carry a secret in every place one can
/// be (a URL's password, secret query values, credential headers, cookies set by the server, an
/// auth token, signing keys, secret JSON fields), meet every kind of failure, and are redirected
/// to another origin. Then every byte written (log files, HAR files, the cache database with its
/// `-wal` and `-shm`, the binary's output) and every error's text is searched for each secret.
@Suite("No secret is written in clear", .timeLimit(.minutes(3)))
struct SecretAuditTests {
    /// Each secret is unique, so a hit can only come from the place it was used.
    static let secrets: [String: String] = [
        "URL password": "pw-7c1f2e", "token query value": "tok-91ad4b", "api_key query value": "key-55b2c9",
        "Authorization": "bearer-3e8a10", "Cookie": "cookie-a41d77", "Set-Cookie": "setcookie-6b0e3f", "X-Api-Key": "apikey-0c7e5d",
        "Proxy-Authorization": "proxyauth-2f9d8a", "AWS secret key": "awssecret-8d3c6e", "AWS session token": "awstoken-4a7b0c",
        "auth token": "authtoken-19fe2b", "access_token in a JSON body": "bodysecret-77e1aa", "password in a form body": "formpw-5c3a91",
    ]
    static func secret(_ name: String) -> String { secrets[name]! }

    /// `http://ann:<password>@127.0.0.1:<port><path>?token=…&api_key=…`
    static func secretURL(_ server: MockWebServer, _ path: String) -> URL {
        URL(
            string:
                "http://ann:\(secret("URL password"))@127.0.0.1:\(server.port)\(path)?token=\(secret("token query value"))&api_key=\(secret("api_key query value"))"
        )!
    }

    static func server() throws -> MockWebServer {
        let server = try MockWebServer()
        let otherOrigin = "http://localhost:\(server.port)"
        server.setHandler { request in
            let path = String(request.target.prefix { $0 != "?" })
            let setCookie = ("Set-Cookie", "session=\(secret("Set-Cookie")); Path=/; HttpOnly")
            switch path {
            case "/login":
                return .init(
                    status: 200, headers: [setCookie, ("Content-Type", "application/json")],
                    body: #"{"access_token":"\#(secret("access_token in a JSON body"))","user":"ann"}"#)
            case "/feed":
                return .init(
                    status: 200, headers: [("Cache-Control", "max-age=600"), ("Vary", "Cookie, Authorization"), setCookie, ("ETag", "\"v1\"")],
                    body: "the feed")
            case "/elsewhere":
                return .init(status: 307, headers: [("Location", "\(otherOrigin)/feed?token=\(secret("token query value"))")], body: "")
            case "/loop":
                return .init(status: 302, headers: [("Location", "/loop?token=\(secret("token query value"))")], body: "")
            case "/denied":
                return .init(
                    status: 401, headers: [("Content-Type", "application/json")],
                    body: #"{"error":"expired","token":"\#(secret("token query value"))"}"#)
            case "/framing":
                return .init(status: 200, headers: [("Content-Length", "5"), ("Content-Length", "7")], body: "hello")
            default:
                return .init(status: 200, headers: [("Retry-After", "0")], body: "slow").with(headersDelay: .seconds(5))
            }
        }
        return server
    }

    func client(in folder: TemporaryDirectory, recorder: HARRecorder) throws -> Client {
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(LoggingMiddleware(level: .body, sink: try .file(folder.fileURL("client.log"))))
        builder.add(LoggingMiddleware(level: .body, sink: try .file(folder.fileURL("wire.jsonl")), format: .jsonLines), at: .network)
        builder.add(HARRecorderMiddleware(recorder: recorder), at: .network)
        var fields = HTTPFields()
        try fields.set(name: "X-Api-Key", value: Self.secret("X-Api-Key"))
        try fields.set(name: "Proxy-Authorization", value: "Basic \(Self.secret("Proxy-Authorization"))")
        builder.add(HeadersMiddleware(configuration: .init(fields: fields)))
        let token = Self.secret("auth token")
        builder.add(AuthTokenMiddleware(configuration: .init(token: { token }, refresh: { token }, headerName: "X-Auth-Token", scheme: "")))
        builder.add(CacheMiddleware(store: try SQLiteCacheStore(path: folder.filePath("cache.sqlite"))))
        builder.add(RetryMiddleware())
        builder.add(
            SigningMiddleware(
                signer: AWSSigV4Signer(
                    accessKeyID: "AKIDAUDIT", secretAccessKey: Self.secret("AWS secret key"), sessionToken: Self.secret("AWS session token"),
                    region: "eu-west-1", service: "execute-api")))
        return builder.build()
    }

    /// Runs `call`, and returns every text its error gives (none when it succeeds).
    func errorTexts(_ call: () async throws -> Void) async -> [String] {
        do {
            try await call()
            return []
        } catch let error as SluiceError {
            return [error.message, error.description, error.localizedDescription, "\(error)", String(reflecting: error)]
        } catch {
            return ["\(error)", error.localizedDescription, String(reflecting: error)]
        }
    }

    @Test func noSecretReachesALogAHARFileTheCacheDatabaseOrAnError() async throws {
        let server = try Self.server()
        let folder = try TemporaryDirectory(prefix: "sluice-audit")
        let recorder = HARRecorder()
        let client = try client(in: folder, recorder: recorder)
        var errors: [String] = []

        // Successful calls: a login whose answer holds a token, a cached feed, a redirect to
        // another origin, a form post with a password.
        var login = HTTPRequest(method: .post, url: Self.secretURL(server, "/login"), body: .bytes(Data(#"{"user":"ann"}"#.utf8)))
        try login.headers.set(name: "Content-Type", value: "application/json")
        try login.headers.set(name: "Authorization", value: "Bearer \(Self.secret("Authorization"))")
        _ = try await client.send(login)
        for _ in 0..<2 {
            var feed = HTTPRequest(url: Self.secretURL(server, "/feed"))
            try feed.headers.set(name: "Authorization", value: "Bearer \(Self.secret("Authorization"))")
            try feed.headers.set(name: "Cookie", value: "session=\(Self.secret("Cookie"))")
            _ = try await client.send(feed)
        }
        var elsewhere = HTTPRequest(method: .post, url: Self.secretURL(server, "/elsewhere"), body: .bytes(Data("x=1".utf8)))
        try elsewhere.headers.set(name: "Cookie", value: "session=\(Self.secret("Cookie"))")
        _ = try await client.send(elsewhere)
        var form = HTTPRequest(
            method: .post, url: Self.secretURL(server, "/login"), body: .bytes(Data("user=ann&password=\(Self.secret("password in a form body"))".utf8)))
        try form.headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded")
        _ = try await client.send(form)

        // Failures of every kind, each with the secrets in its URL.
        errors += await errorTexts { _ = try await client.send(HTTPRequest(url: Self.secretURL(server, "/loop"))) }
        errors += await errorTexts { _ = try await client.get(Self.secretURL(server, "/denied").absoluteString, as: [String: String].self) }
        errors += await errorTexts { _ = try await client.send(HTTPRequest(url: Self.secretURL(server, "/framing"))) }
        errors += await errorTexts {
            _ = try await client.send(HTTPRequest(url: Self.secretURL(server, "/slow")), context: RequestContext(deadline: .now + .milliseconds(300)))
        }
        let closed = Loopback.RefusedPort()  // held to the end: no parallel test's server can take it
        defer { withExtendedLifetime(closed) {} }
        errors += await errorTexts {
            _ = try await client.send(
                HTTPRequest(url: URL(string: "http://ann:\(Self.secret("URL password"))@127.0.0.1:\(closed.port)/x?token=\(Self.secret("token query value"))")!)
            )
        }
        #expect(errors.count == 5 * 5, "every failing call failed: \(errors.count / 5)")

        // The command line: verbose output, a HAR file and a cache of its own, and an error.
        // -v prints the request as typed (so it can be pasted); --redact hides what was typed too.
        let cli = try await Sluice.run([
            "-vv", "--redact", "--har", folder.filePath("cli.har"), "--cache=\(folder.filePath("cli-cache"))", Self.secretURL(server, "/feed").absoluteString,
            "Authorization:Bearer \(Self.secret("Authorization"))", "X-Api-Key:\(Self.secret("X-Api-Key"))", "Cookie:session=\(Self.secret("Cookie"))",
        ])
        #expect(cli.status == 0, "\(cli.stderr)")
        let refused = try await Sluice.run([
            "-v", "http://ann:\(Self.secret("URL password"))@127.0.0.1:\(closed.port)/x?token=\(Self.secret("token query value"))",
        ])
        #expect(refused.status != 0)
        try recorder.write(to: folder.fileURL("client.har"))

        // The secrets were really in play: the server saw them.
        let seen = server.requests.flatMap { $0.headers.map(\.value) + [$0.target] }.joined(separator: "\n")
        for name in ["Authorization", "Cookie", "X-Api-Key", "auth token", "AWS session token", "token query value"] {
            #expect(seen.contains(Self.secret(name)), "\(name) was never sent, so the audit proves nothing about it")
        }

        // Everything written: each file under the folder, the binary's output, every error's text.
        var written: [(what: String, bytes: Data)] = []
        let files = FileManager.default.enumerator(at: folder.url, includingPropertiesForKeys: [.isRegularFileKey])!
        for case let file as URL in files where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            written.append((file.path.replacingOccurrences(of: folder.path + "/", with: ""), try Data(contentsOf: file)))
        }
        written.append(("sluice -vv output", cli.stdout + Data(cli.stderr.utf8)))
        written.append(("sluice error output", refused.stdout + Data(refused.stderr.utf8)))
        for (index, text) in errors.enumerated() { written.append(("error text \(index)", Data(text.utf8))) }
        let names = Set(written.map(\.what))
        for expected in ["client.log", "wire.jsonl", "client.har", "cli.har", "cache.sqlite", "cache.sqlite-wal"] {
            #expect(names.contains(expected), "\(expected) was not written: \(names.sorted())")
        }
        #expect(written.first { $0.what == "client.log" }.map { String(decoding: $0.bytes, as: UTF8.self).contains("/feed") } == true)
        #expect(written.first { $0.what == "cli.har" }.map { $0.bytes.count > 500 } == true)

        for (name, secret) in Self.secrets.sorted(by: { $0.key < $1.key }) {
            for item in written where item.bytes.range(of: Data(secret.utf8)) != nil {
                Issue.record("the \(name) (\(secret)) is in \(item.what)")
            }
        }
    }
}
