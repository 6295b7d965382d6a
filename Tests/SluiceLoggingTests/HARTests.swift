import Foundation
import Sluice
import SluiceCurl
import SluiceLogging
import SluiceTestSupport
import SluiceTesting
import Testing

func temporaryHAR() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(UUID().uuidString).har")
}

@Suite struct HARTests {
    let base = "https://api.example.com"

    /// A recording made over MockTransport, so the URLs and bodies are known exactly.
    func record(_ replies: [MockTransport.Reply], _ requests: [HTTPRequest]) async throws -> (HARRecorder, URL) {
        let recorder = HARRecorder()
        let harness = MiddlewareHarness(HARRecorderMiddleware(recorder: recorder), replies: replies)
        for request in requests { _ = try await harness.send(request) }
        let file = temporaryHAR()
        try recorder.write(to: file)
        return (recorder, file)
    }

    @Test func aReusedConnectionHasNoLookupOrConnectTime() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 200, body: "one"), .init(status: 200, body: "two"))
        let recorder = HARRecorder()
        let pipeline = Pipeline(middlewares: [HARRecorderMiddleware(recorder: recorder)], transport: CurlTransport())
        _ = try await pipeline.send(HTTPRequest(url: server.url("/one")))
        _ = try await pipeline.send(HTTPRequest(url: server.url("/two")))
        #expect(server.requests.map(\.connection) == [0, 0])  // the server saw one connection
        let file = temporaryHAR()
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let timings = try entries.map { try #require($0["timings"] as? [String: Double]) }
        #expect(timings.count == 2)
        #expect((timings[0]["connect"] ?? -1) >= 0)
        #expect(timings[1]["dns"] == -1 && timings[1]["connect"] == -1 && timings[1]["ssl"] == -1, "\(timings[1])")
    }

    @Test func aRecordingAgainstHttpbinParsesBackWithTheRequiredFields() async throws {
        let httpbin = try InteropServers.value("SLUICE_HTTPBIN_URL")
        let recorder = HARRecorder()
        let pipeline = Pipeline(middlewares: [HARRecorderMiddleware(recorder: recorder)], transport: CurlTransport())
        _ = try await pipeline.send(HTTPRequest(url: URL(string: httpbin + "/get?x=1&token=abc")!, headers: ["Authorization": "Bearer s3cr3t"]))
        // gunicorn may close an idle connection (after 2 s): whether the second call reused the
        // first one's is what curl reports. The MockWebServer test below checks reuse for sure.
        let second = try await pipeline.send(
            HTTPRequest(
                method: .post, url: URL(string: httpbin + "/post")!, headers: ["Content-Type": "application/json"],
                body: .bytes(Data(#"{"user":"ann","password":"hunter2"}"#.utf8))))
        let file = temporaryHAR()
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)
        // Even redacted, a recording holds URLs and bodies: the file is its owner's alone.
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: String])?["name"] == "Sluice")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (index, entry) in entries.enumerated() {
            #expect(formatter.date(from: entry["startedDateTime"] as? String ?? "") != nil)
            #expect((entry["time"] as? Double ?? -1) > 0)
            let request = try #require(entry["request"] as? [String: Any])
            for key in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
                #expect(request[key] != nil, "request.\(key)")
            }
            let response = try #require(entry["response"] as? [String: Any])
            for key in ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"] {
                #expect(response[key] != nil, "response.\(key)")
            }
            #expect(response["status"] as? Int == 200)
            #expect((response["content"] as? [String: Any])?["mimeType"] as? String == "application/json")
            #expect(entry["cache"] is [String: Any])
            let timings = try #require(entry["timings"] as? [String: Double])
            for key in ["send", "wait", "receive"] { #expect((timings[key] ?? -1) >= 0, "timings.\(key)") }
            // The first call looks the name up and connects; a call on a reused connection does
            // neither (-1). Plain HTTP has no handshake, and nothing waits in a queue.
            #expect(timings["blocked"] == -1)
            #expect(timings["ssl"] == -1)
            if index == 0 || second.metrics?.reusedConnection == false {
                #expect((timings["dns"] ?? -1) >= 0, "timings.dns = \(timings["dns"] ?? .nan)")
                #expect((timings["connect"] ?? -1) >= 0, "timings.connect = \(timings["connect"] ?? .nan)")
            } else {
                #expect(timings["dns"] == -1, "timings.dns = \(timings["dns"] ?? .nan)")
                #expect(timings["connect"] == -1, "timings.connect = \(timings["connect"] ?? .nan)")
            }
            #expect(entry["serverIPAddress"] as? String == "127.0.0.1")
        }
        // The requests carry no secret. (httpbin's echoes inside string values, such as its "url"
        // and "data" fields, are beyond what key-based redaction can see.)
        for entry in entries {
            let request = String(decoding: try JSONSerialization.data(withJSONObject: entry["request"] ?? [:]), as: UTF8.self)
            #expect(!request.contains("s3cr3t") && !request.contains("hunter2") && !request.contains("abc"))
        }
        let echoed = try #require(((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])?["text"] as? String)
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(echoed.utf8)) as? [String: Any])
        #expect((echo["headers"] as? [String: String])?["Authorization"] == "<redacted>")  // a header name as a JSON key
        #expect((echo["args"] as? [String: String])?["token"] == "<redacted>")
        let first = try #require(entries[0]["request"] as? [String: Any])
        #expect((first["url"] as? String)?.hasSuffix("/get?x=1&token=<redacted>") == true)
        #expect(first["queryString"] as? [[String: String]] == [["name": "x", "value": "1"], ["name": "token", "value": "<redacted>"]])
        #expect((first["headers"] as? [[String: String]])?.contains(["name": "Authorization", "value": "<redacted>"]) == true)
        let post = try #require((entries[1]["request"] as? [String: Any])?["postData"] as? [String: String])
        #expect(post["mimeType"] == "application/json")
        #expect(post["text"] == #"{"password":"<redacted>","user":"ann"}"#)

        // And it replays: the same GET, even with another token, gets httpbin's recorded answer.
        let replay = try HARReplayTransport(contentsOf: file)
        let again = try await replay.send(HTTPRequest(url: URL(string: httpbin + "/get?x=1&token=other")!), context: RequestContext())
        #expect(again.status == .ok)
        #expect(again.source == .replay)
        let replayed = try #require(try JSONSerialization.jsonObject(with: again.body) as? [String: Any])
        #expect((replayed["args"] as? [String: String])?["x"] == "1")
    }

    @Test func replayServesRepeatsInOrderAndBinaryBodies() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        let (_, file) = try await record(
            [
                .status(.ok, body: "first"), .status(.ok, body: "second"),
                .response(HTTPResponse(status: .created, headers: ["Content-Type": "image/png"], body: png)),
            ],
            [
                HTTPRequest(url: URL(string: base + "/feed")!), HTTPRequest(url: URL(string: base + "/feed")!),
                HTTPRequest(method: .put, url: URL(string: base + "/avatar")!, headers: ["Content-Type": "image/png"], body: .bytes(png)),
            ])
        defer { try? FileManager.default.removeItem(at: file) }
        let replay = try HARReplayTransport(contentsOf: file)
        #expect(replay.entryCount == 3)
        let feed = HTTPRequest(url: URL(string: base + "/feed")!)
        var bodies: [String?] = []
        for _ in 0..<3 { bodies.append(try await replay.send(feed, context: RequestContext()).text) }
        #expect(bodies == ["first", "second", "second"])
        let avatar = try await replay.send(HTTPRequest(method: .put, url: URL(string: base + "/avatar")!, body: .bytes(png)), context: RequestContext())
        #expect(avatar.status == .created)
        #expect(avatar.body == png)
        #expect(avatar.headers["Content-Type"] == "image/png")
    }

    @Test func aMissListsTheNearestEntries() async throws {
        let (_, file) = try await record(
            [.status(.ok), .status(.ok), .status(.ok)],
            [
                HTTPRequest(url: URL(string: base + "/users?page=2")!),
                HTTPRequest(method: .post, url: URL(string: base + "/users")!, body: .bytes(Data("name=ann".utf8))),
                HTTPRequest(url: URL(string: "https://other.example.com/users?page=3")!),
            ])
        defer { try? FileManager.default.removeItem(at: file) }
        let replay = try HARReplayTransport(contentsOf: file)
        await #expect {
            _ = try await replay.send(HTTPRequest(url: URL(string: base + "/users?page=3")!), context: RequestContext())
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .replayMiss
                && error?.message == """
                    no recorded entry for GET https://api.example.com/users?page=3 (no body); nearest recorded:
                      1. GET https://api.example.com/users?page=2 (query differs)
                      2. GET https://other.example.com/users?page=3 (host differs)
                      3. POST https://api.example.com/users (method, query, body differs)
                    """
        }
    }

    @Test func badFilesAreTypedErrors() throws {
        #expect {
            _ = try HARReplayTransport(data: Data("{}".utf8))
        } throws: { error in
            (error as? SluiceError)?.code == .invalidHAR && (error as? SluiceError)?.message == #"not a HAR 1.2 file: missing "log" at the top level"#
        }
        #expect {
            _ = try HARReplayTransport(data: Data(#"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"startedDateTime":"x"}]}}"#.utf8))
        } throws: { error in
            (error as? SluiceError)?.message == #"not a HAR 1.2 file: missing "time" at log.entries[0]"#
        }
        #expect {
            _ = try HARReplayTransport(data: Data("not json".utf8))
        } throws: { error in
            (error as? SluiceError)?.code == .invalidHAR && (error as? SluiceError)?.message.hasPrefix("not a HAR 1.2 file: invalid JSON") == true
        }
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString).har")
        #expect {
            _ = try HARReplayTransport(contentsOf: missing)
        } throws: { error in
            (error as? SluiceError)?.code == .invalidHAR && (error as? SluiceError)?.message.hasPrefix("cannot read HAR file \(missing.path)") == true
        }
    }

    @Test func aHARFileThatCannotBeWrittenIsWriteFailedNamingThePath() {
        let folder = "/nonexistent-\(UUID().uuidString)"
        #expect {
            try HARRecorder().write(to: URL(fileURLWithPath: folder + "/session.har"))
        } throws: { error in
            (error as? SluiceError)?.code == .writeFailed
                && (error as? SluiceError)?.message == "cannot write HAR file \(folder)/session.har: No such file or directory"
        }
    }
}

@Suite("HAR recording's place")
struct HARRecordingPlaceTests {
    /// The recorder sits just inside the logger, whichever was added first.
    @Test(arguments: [false, true])
    func theRecorderSitsJustInsideTheLogger(recorderFirst: Bool) {
        var builder = Client.Builder(transport: MockTransport(replies: []))
        let recorder = HARRecorderMiddleware(recorder: HARRecorder())
        let logger = LoggingMiddleware(level: .basic, sink: .closure { _ in })
        if recorderFirst {
            builder.add(recorder)
            builder.add(logger)
        } else {
            builder.add(logger)
            builder.add(recorder)
        }
        let types = builder.middlewares.map { String(describing: type(of: $0)) }
        #expect(types.firstIndex(of: "LoggingMiddleware")! + 1 == types.firstIndex(of: "HARRecorderMiddleware")!, "\(types)")
    }
}
