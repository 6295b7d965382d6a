import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceLogging
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceStandard

/// One privacy policy for the whole client: a secret named once on `Client.Configuration.redaction`
/// is hidden by every stage (errors, logs, HAR, the cache's files) and dropped on a redirect to
/// another origin, through real stages, libcurl and a real server.
@Suite("One privacy policy", .timeLimit(.minutes(1)))
struct PrivacyPolicyTests {
    static let secretField = "X-Tenant-Secret"
    static let secretValue = "tenant-s3cr3t-value"
    static let pin = "pin-value-42x"

    /// The standard stack with a SQLite cache in `folder`, a logger at `.body` writing to `lines`,
    /// a HAR recorder, and a policy that adds one header and one parameter to the defaults.
    func client(folder: TemporaryDirectory, lines: Locked<[String]>, recorder: HARRecorder) throws -> Client {
        let policy = Redaction.default.adding(headers: [Self.secretField], parameters: ["pin"])
        return try Client.standard(
            cache: .sqlite(folder.filePath("cache.sqlite")), configuration: .init(redaction: policy)
        ) { builder in
            _ = builder.replace(
                LoggingMiddleware.self, with: LoggingMiddleware(level: .body, sink: .closure { line in lines.withLock { $0.append(line) } }))
            builder.add(HARRecorderMiddleware(recorder: recorder))
        }
    }

    @Test func aSecretNamedOnceOnTheClientIsHiddenByEveryStageAndDroppedAcrossOrigins() async throws {
        let origin = try MockWebServer()
        let other = try MockWebServer()
        defer {
            origin.shutdown()
            other.shutdown()
        }
        origin.setHandler { _ in .init(status: 302, headers: [("Location", other.url("/landing").absoluteString)], body: "") }
        // The other origin echoes the secret field back in a field of its own name when it gets
        // one (in the body too, at /echo), and lets the answer be cached, varying on that field.
        other.setHandler { request in
            var headers = [("Cache-Control", "max-age=600"), ("Vary", Self.secretField)]
            if let echoed = request.header(Self.secretField) { headers.append((Self.secretField, echoed)) }
            let echoes = request.target.hasPrefix("/echo")
            return .init(status: 200, headers: headers, body: echoes ? "echo: \(request.header(Self.secretField) ?? "none")" : "kept")
        }
        let folder = try TemporaryDirectory(prefix: "sluice-privacy")
        let lines = Locked<[String]>([])
        let recorder = HARRecorder()
        let client = try client(folder: folder, lines: lines, recorder: recorder)
        let headers: HTTPFields = [Self.secretField: Self.secretValue]

        // 1. A redirect to another origin: the secret reaches the first origin, not the second.
        let redirected = try await client.send(HTTPRequest(url: origin.url("/start?pin=\(Self.pin)"), headers: headers))
        #expect(redirected.status == .ok)
        #expect(origin.requests.first?.header(Self.secretField) == Self.secretValue)
        #expect(other.requests.count == 1)
        #expect(other.requests.first?.header(Self.secretField) == nil)

        // 2. A cached answer that echoes the secret: the store keeps neither it nor the pin.
        let cached = try await client.send(HTTPRequest(url: other.url("/cached?pin=\(Self.pin)"), headers: headers))
        #expect(cached.status == .ok)
        #expect(other.requests.last?.header(Self.secretField) == Self.secretValue)
        let again = try await client.send(HTTPRequest(url: other.url("/cached?pin=\(Self.pin)"), headers: headers))
        #expect(again.source == .cache && again.body == Data("kept".utf8))
        #expect(other.requests.count == 2)
        // An answer whose body echoes the secret reaches its caller whole, and is not kept.
        for _ in 0..<2 {
            let echoed = try await client.send(HTTPRequest(url: other.url("/echo?pin=\(Self.pin)"), headers: headers))
            #expect(echoed.source == .network && echoed.body == Data("echo: \(Self.secretValue)".utf8))
        }
        #expect(other.requests.count == 4)
        var stored = Data()
        // The database, its journal, and the folder of bodies beside it.
        let files = try #require(FileManager.default.enumerator(at: folder.url, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let file as URL in files where try file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            stored += try Data(contentsOf: file)
        }
        #expect(stored.range(of: Data("/cached".utf8)) != nil, "the answer was stored")
        #expect(stored.range(of: Data(Self.secretValue.utf8)) == nil)
        #expect(stored.range(of: Data(Self.pin.utf8)) == nil)

        // 3. An error message that quotes the request.
        await #expect {
            _ = try await client.send(HTTPRequest(url: other.url("/slow?pin=\(Self.pin)")), timeout: .zero)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .timedOut && error?.message.contains("/slow?pin=<redacted>") == true
                && error?.message.contains(Self.pin) == false
        }

        // 4. The log lines and the HAR recording.
        let log = lines.withLock { $0.joined(separator: "\n") }
        #expect(log.contains("pin=<redacted>"))
        #expect(log.contains("\(Self.secretField): <redacted>"))
        #expect(!log.contains(Self.secretValue))
        #expect(!log.contains(Self.pin))
        let har = folder.fileURL("calls.har")
        try recorder.write(to: har)
        let recording = try String(contentsOf: har, encoding: .utf8)
        #expect(recording.contains("<redacted>"))
        #expect(!recording.contains(Self.secretValue))
        #expect(!recording.contains(Self.pin))
    }

    @Test func aRequestsOwnPolicyAddsToTheClientsAndAStageNeverShowsLess() throws {
        let client = try Client.standard(configuration: .init(redaction: Redaction.default.adding(parameters: ["pin"])))
        // A request the client made carries the client's policy.
        let made = try client.makeRequest(.get, "https://api.example.com/pay?pin=1&card=2")
        #expect(made.description == "GET https://api.example.com/pay?pin=<redacted>&card=2")
        // One whose own policy names more keeps both once the client sends it.
        var own = HTTPRequest(url: URL(string: "https://api.example.com/pay?pin=1&card=2")!)
        own.redaction = own.redaction.adding(parameters: ["card"])
        let sent = try client.pipeline.preparation.prepare(own)
        #expect(sent.description == "GET https://api.example.com/pay?pin=<redacted>&card=<redacted>")
        // A plain request gets the client's policy itself, not a copy.
        #expect(
            try client.pipeline.preparation.prepare(HTTPRequest(url: URL(string: "https://api.example.com/")!)).redaction.isSame(
                as: client.configuration.redaction))
        // A stage's own redaction adds to the request's; `.disabled` on a stage is its own choice.
        let stage = Redaction.default.adding(headers: ["X-Stage"])
        #expect(stage.adding(sent.redaction).hidesQueryParameter("pin") && stage.adding(sent.redaction).hidesHeader("x-stage"))
        #expect(!Redaction.disabled.adding(sent.redaction).isEnabled)
    }
}
