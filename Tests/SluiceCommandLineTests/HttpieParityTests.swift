import Foundation
import Sluice
import SluiceCommandLine
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// What an httpie user types does what httpie does: each test runs `sluice` and httpie 3 (from
/// PyPI, installed by `make test`) with the same arguments against httpbin, and compares what
/// httpbin received or what each printed.
@Suite("sluice beside httpie, against httpbin", .serialized, .timeLimit(.minutes(3)))
struct HttpieParityTests {
    let httpbin: String

    init() throws {
        httpbin = try InteropServers.httpbin().absoluteString
    }

    /// httpbin's echo of what it received, from both tools.
    func echoes(_ arguments: [String]) async throws -> (sluice: [String: Any], httpie: [String: Any]) {
        let ours = try await Sluice.run(arguments), theirs = try await Sluice.httpie(arguments)
        #expect(ours.status == 0, "sluice: \(ours.stderr)")
        #expect(theirs.status == 0, "httpie: \(theirs.stderr)")
        return (try ours.json(), try theirs.json())
    }

    @Test func aSchemelessURLWithAURLInItsQueryIsTaken() async throws {
        let address = String(httpbin.dropFirst("http://".count))
        let target = "\(address)/redirect-to?url=http://example.com/"
        let ours = try await Sluice.run(["-p", "h", target]), theirs = try await Sluice.httpie(["-p", "h", target])
        #expect(ours.status == 0 && theirs.status == 0, "\(ours.stderr)")
        for result in [ours, theirs] { #expect(result.text.contains("Location: http://example.com/"), "\(result.text)") }
    }

    @Test func nestedJSONItemsMakeTheBodyHttpieMakes() async throws {
        let items = ["POST", "\(httpbin)/post", "user[name]=Bob", "user[age]:=36", "tags[]=a", "tags[]=b", "list[2]:=3", "a=1", "a=2"]
        let (ours, theirs) = try await echoes(items)
        let body = try #require(ours["json"] as? [String: Any])
        #expect((body["user"] as? [String: Any])?["name"] as? String == "Bob")
        #expect(body["tags"] as? [String] == ["a", "b"])
        #expect(NSDictionary(dictionary: body) == NSDictionary(dictionary: try #require(theirs["json"] as? [String: Any])))
    }

    @Test func headerColonLeavesAFieldOutAndSemicolonSendsItEmpty() async throws {
        let (ours, theirs) = try await echoes(["\(httpbin)/headers", "User-Agent:", "Accept:", "X-Empty;"])
        for echo in [ours, theirs] {
            let headers = try #require(echo["headers"] as? [String: String])
            #expect(headers["User-Agent"] == nil && headers["Accept"] == nil, "\(headers)")
            #expect(headers["X-Empty"] == "")
        }
    }

    @Test func jsonAsksForJSONOnAnyMethod() async throws {
        let (ours, theirs) = try await echoes(["--json", "\(httpbin)/headers"])
        for echo in [ours, theirs] {
            #expect((echo["headers"] as? [String: String])?["Accept"] == "application/json, */*;q=0.5")
        }
    }

    @Test func gzipAndDeflateAnswersAreDecodedUnlessAskedNotTo() async throws {
        for path in ["gzip", "deflate"] {
            let (ours, theirs) = try await echoes(["\(httpbin)/\(path)"])
            #expect(ours["\(path == "gzip" ? "gzipped" : "deflated")"] as? Bool == true)
            #expect(NSDictionary(dictionary: ours)["method"] as? String == NSDictionary(dictionary: theirs)["method"] as? String)
        }
        let kept = try await Sluice.run(["--keep-encoding", "\(httpbin)/gzip"])
        #expect(kept.status == 0)
        #expect(kept.stdout.prefix(2) == Data([0x1F, 0x8B]), "the gzip bytes as they came")
    }

    @Test func verbosePrintsTheRequestAndTheResponseAsHttpieDoes() async throws {
        let arguments = ["-v", "\(httpbin)/get", "q==1"]
        let ours = try await Sluice.run(arguments), theirs = try await Sluice.httpie(arguments)
        for result in [ours, theirs] {
            let lines = result.text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")  // httpie writes CRLF heads
            #expect(lines.first == "GET /get?q=1 HTTP/1.1", "\(result.text)")
            #expect(lines.contains { $0.hasPrefix("HTTP/1.1 200 OK") }, "\(result.text)")
            #expect(result.text.contains("\"args\""))
        }
        #expect(ours.stderr.isEmpty, "-v alone writes no log: \(ours.stderr)")
        let louder = try await Sluice.run(["-vv", "\(httpbin)/get"])
        #expect(louder.stderr.contains("GET \(httpbin)/get -> 200 OK"))
        #expect(louder.text.hasPrefix("GET /get HTTP/1.1"))
    }

    @Test func checkStatusWarnsOnStandardError() async throws {
        let ours = try await Sluice.run(["--check-status", "\(httpbin)/status/404"])
        let theirs = try await Sluice.httpie(["--check-status", "\(httpbin)/status/404"])
        #expect(ours.status == 4 && theirs.status == 4)
        #expect(ours.stderr == "sluice: warning: HTTP 404 NOT FOUND\n")
        #expect(theirs.stderr.contains("warning: HTTP 404 NOT FOUND"))
    }

    @Test func aPipedBodyWithDataItemsIsRefused() async throws {
        let result = try await Sluice.run(["POST", "\(httpbin)/post", "a=1"], input: Data("{}".utf8))
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "sluice: a body piped to standard input and data items (field=value) cannot be mixed: give one, or -I (--ignore-stdin) "
                + "to send the items\n")
        let ignored = try await Sluice.run(["-I", "POST", "\(httpbin)/post", "a=1"], input: Data("{}".utf8))
        #expect(try ignored.json()["json"] as? [String: String] == ["a": "1"])
    }

    @Test func downloadIsAFlagAndOutputNamesTheFile() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        // -d -o FILE, as httpie takes it; nothing is left beside the file.
        let named = try await Sluice.run(["-d", "-o", "x.png", "\(httpbin)/image/png"], directory: scratch.path)
        #expect(named.status == 0, "\(named.stderr)")
        let png = try Data(contentsOf: URL(fileURLWithPath: scratch.filePath("x.png")))
        #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // -d alone: named after the URL, and never over an existing file.
        _ = try await Sluice.run(["-d", "\(httpbin)/bytes/100"], directory: scratch.path)
        _ = try await Sluice.run(["-d", "\(httpbin)/bytes/100"], directory: scratch.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        #expect(names == ["100", "100-1", "x.png"], "\(names)")
        // -o alone writes the body to the file, as httpie does.
        let theirs = try await Sluice.httpie(["-o", "theirs.json", "\(httpbin)/json"], directory: scratch.path)
        let ours = try await Sluice.run(["-o", "ours.json", "\(httpbin)/json"], directory: scratch.path)
        #expect(ours.status == 0 && theirs.status == 0)
        #expect(ours.stdout.isEmpty)
        let written = try Data(contentsOf: URL(fileURLWithPath: scratch.filePath("ours.json")))
        #expect(written == (try Data(contentsOf: URL(fileURLWithPath: scratch.filePath("theirs.json")))))
        // With --stream, the body goes to the file as it arrives (written chunk by chunk, not
        // gathered first), the same bytes the server sent.
        let expected = try await CurlTransport().send(HTTPRequest(url: try #require(URL(string: "\(httpbin)/range/70000"))), context: RequestContext()).body
        let streamed = try await Sluice.run(["-S", "-o", "streamed.bin", "\(httpbin)/range/70000"], directory: scratch.path)
        #expect(streamed.status == 0 && streamed.stdout.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.filePath("streamed.bin"))) == expected)
    }

    /// --timeout bounds the whole call: a throttled download that would finish through automatic
    /// resumes is ended at the limit (curl's 28), with what it got kept for -c.
    @Test func timeoutIsTheWholeCallsLimitResumesIncluded() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-download")
        let start = ContinuousClock.now
        let result = try await Sluice.run(
            ["--timeout", "0.6", "-d", "-o", "slow.bin", "\(httpbin)/range/20000?duration=4&chunk_size=500"], directory: scratch.path)
        #expect(result.status == 28, "\(result.stderr)")
        #expect(result.stderr.contains("--timeout 0.6 s passed"), "\(result.stderr)")
        // Well before the 4 s the server takes, with room for a loaded machine.
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(20)))
        #expect(!FileManager.default.fileExists(atPath: scratch.filePath("slow.bin")))
    }

    @Test func bodyStreamPrettyAndVerifyTakeHttpiesMeanings() async throws {
        let body = try await Sluice.run(["-b", "\(httpbin)/get"])
        #expect(body.text.hasPrefix("{"))
        let streamed = try await Sluice.run(["-S", "\(httpbin)/stream/3"])
        #expect(streamed.status == 0)
        #expect(streamed.text.split(separator: "\n").count == 3)
        let formatted = try await Sluice.run(["--pretty=format", "\(httpbin)/json"])
        #expect(formatted.text.contains("\n    \""), "laid out: \(formatted.text.prefix(80))")
        let raw = try await Sluice.run(["--pretty=none", "\(httpbin)/json"])
        #expect(raw.stdout == (try await Sluice.run(["\(httpbin)/json"])).stdout)
        let noCA = try await Sluice.run(["--verify", "/nonexistent/ca.pem", "\(httpbin)/get"])
        #expect(noCA.status == 2 && noCA.stderr == "sluice: --verify /nonexistent/ca.pem: no such CA file (yes, no or the path of a PEM file)\n")
    }

    /// --proxy SCHEME:URL sends the request through the proxy: it gets the absolute URL.
    @Test func proxySendsThroughTheProxyForThatScheme() async throws {
        let proxy = try MockWebServer()
        proxy.setHandler { _ in .init(status: 200, body: "via proxy") }
        let result = try await Sluice.run(["--proxy", "http:\(proxy.baseURL.absoluteString)", "http://example.invalid/x"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "via proxy")
        #expect(proxy.requests.first?.target == "http://example.invalid/x")
    }

    /// -a USER asks for the password on the terminal, without echo, as httpie does.
    @Test func aUserWithoutAPasswordIsAskedForItOnATerminal() async throws {
        let result = try await Sluice.runOnATerminal(["-a", "ann", "\(httpbin)/basic-auth/ann/s3cret"], typed: Data("s3cret\n".utf8))
        #expect(result.status == 0, "\(result.text)")
        #expect(result.text.contains("password for ann@127.0.0.1"))
        #expect(result.text.contains("\"authenticated\": true"))
        #expect(!result.text.contains("s3cret\n"), "the password is not echoed")
    }
}
