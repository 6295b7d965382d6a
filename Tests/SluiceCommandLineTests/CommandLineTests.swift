import Foundation
import Sluice
import SluiceCommandLine
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite struct RequestItemTests {
    @Test(arguments: [
        ("X-Api-Key:abc", RequestItem.header("X-Api-Key", "abc")),
        ("Accept: text/html", .header("Accept", "text/html")),
        ("X-Empty:", .header("X-Empty", "")),
        ("Authorization:Bearer a=b", .header("Authorization", "Bearer a=b")),
        ("q==café", .query("q", "café")),
        ("url==http://x/?a=1", .query("url", "http://x/?a=1")),
        ("name=Ada", .field("name", "Ada")),
        ("expr=a==b", .field("expr", "a==b")),
        ("age:=36", .jsonField("age", "36")),
        ("tags:=[\"a\",\"b\"]", .jsonField("tags", "[\"a\",\"b\"]")),
        ("photo@/tmp/a.jpg", .file("photo", "/tmp/a.jpg")),
        ("a\\:b==1", .query("a:b", "1")),
        ("mail\\@home=x", .field("mail@home", "x")),
    ])
    func itemsParse(text: String, item: RequestItem) throws {
        #expect(try RequestItem(parsing: text) == item)
    }

    @Test func badItemsSayWhy() {
        #expect(throws: UsageError(#""=x" has no name before its separator"#)) { try RequestItem(parsing: "=x") }
        #expect(throws: UsageError(#""plain" is not an item: use Header:Value, name==value, field=value, field:=json or field@file"#)) {
            try RequestItem(parsing: "plain")
        }
    }
}

@Suite struct InvocationTests {
    @Test func methodURLItemsAndFlags() throws {
        let invocation = try Invocation.parse([
            "-vv", "--retry", "3", "--cache", "--gzip", "--timeout=2.5", "POST", "api.example.com/notes",
            "title=Hi", "draft:=true", "--check-status", "--sign", "hmac:key-1", "--aws-sigv4=eu-west-1:s3",
        ])
        #expect(invocation.method == .post)
        #expect(invocation.url == "http://api.example.com/notes")
        #expect(invocation.items == [.field("title", "Hi"), .jsonField("draft", "true")])
        #expect(invocation.verbosity == 2)
        #expect(invocation.retry == 3)
        #expect(invocation.cache == "")
        #expect(invocation.gzip)
        #expect(invocation.timeout == 2.5)
        #expect(invocation.checkStatus)
        #expect(invocation.sign == "key-1")
        #expect(invocation.awsSigV4?.region == "eu-west-1" && invocation.awsSigV4?.service == "s3")
    }

    @Test func urlsAreCompletedAndSchemesChecked() throws {
        #expect(try Invocation.parse([":8080/x"]).url == "http://localhost:8080/x")
        #expect(try Invocation.parse(["https://example.com"]).url == "https://example.com")
        #expect(try Invocation.parse(["GET"]).url == "http://GET")  // one word is a host, not a method
        #expect(throws: UsageError(#""ftp://example.com/f" is not an http or https URL"#)) { try Invocation.parse(["ftp://example.com/f"]) }
    }

    @Test(arguments: [
        (["--bogus", "x"], "unknown option --bogus; see sluice --help"),
        (["-z", "x"], "unknown option -z; see sluice --help"),
        ([String](), "no URL given; usage: sluice [METHOD] URL [ITEM…]; see sluice --help"),
        (["--retry", "many", "x"], #"--retry expects a whole number from 0 to 10, not "many""#),
        (["x", "--retry"], "--retry needs a value; see sluice --help"),
        (["--timeout", "-1", "x"], #"--timeout expects a number of seconds above 0, not "-1""#),
        (["--sign", "rsa:k", "x"], #"--sign expects hmac:KEYID, not "rsa:k""#),
        (["--aws-sigv4", "us-east-1", "x"], #"--aws-sigv4 expects REGION:SERVICE (like us-east-1:s3), not "us-east-1""#),
        (["--pin", "abc", "x"], #"--pin expects sha256//BASE64 (curl's --pinnedpubkey form), not "abc""#),
        (["--print", "hx", "x"], #"--print takes letters from H, B, h and b, not "hx""#),
        (
            ["--cache-policy", "never", "x"],
            #"--cache-policy must be one of use-protocol, reload, return-cache-else-load, return-cache-dont-load, offline-fallback, not "never""#
        ),
        (["-c", "x"], "-c continues a download: give --download FILE too"),
        (["--key", "k.pem", "x"], "--key needs --cert: the key belongs to a client certificate"),
        (["-vvvv", "x"], "-v can be given at most three times (-vvv)"),
    ])
    func badCommandLinesSayWhatIsWrong(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Invocation.parse(arguments) }
    }

    @Test func controlCharactersFromArgumentsAreEscapedSoTheErrorStaysOneLine() throws {
        // Found by the command-line fuzz target: a newline inside an option broke the error into
        // two lines, and an escape sequence would have reached the terminal.
        do {
            _ = try Invocation.parse(["--x\ny\u{1B}[2J\u{85}", "example.com"])
            Issue.record("an unknown option was accepted")
        } catch {
            #expect(error.message == #"unknown option --x\ny\u{1B}[2J\u{0085}; see sluice --help"#)
        }
        #expect(UsageError("naïve ✓").message == "naïve ✓")
    }

    @Test func helpCoversEveryFlagAndExitCode() {
        let help = HelpText.text
        for flag in [
            "-v, -vv, -vvv", "--har", "--cache[=DIR]", "--cache-policy", "--offline-fallback", "--retry", "--gzip", "--sign hmac:KEYID",
            "--aws-sigv4", "--oauth1", "--download", "--continue", "--timeout", "--http2", "--cert", "--key", "--pin",
            "--insecure", "--check-status", "--print", "--help", "--version",
        ] {
            #expect(help.contains(flag), "help does not mention \(flag)")
        }
        for code in ExitCode.allCases { #expect(help.contains("  \(code.rawValue)"), "help does not list exit code \(code.rawValue)") }
    }
}

/// Runs the built `sluice` binary.
struct Sluice {
    struct Result: Sendable {
        let status: Int32
        let stdout: Data
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        }
    }

    static func binary() throws -> URL {
        try BuiltProducts.executable("sluice")
    }

    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "SLUICE_LOG")
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return (process, stdout, stderr)
    }

    /// Runs it to the end, waiting on a thread of its own (not one of the cooperative threads).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        let (process, stdout, stderr) = try start(arguments, environment: environment)
        return try await Blocking.run {
            // Standard error is read on another thread at the same time, so neither pipe fills.
            let errors = Thread.detachedRead(stderr.fileHandleForReading)
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(status: process.terminationStatus, stdout: out, stderr: String(decoding: errors(), as: UTF8.self))
        }
    }
}

extension Thread {
    /// Starts reading `handle` to its end on a new thread; the returned function waits for the data.
    static func detachedRead(_ handle: FileHandle) -> @Sendable () -> Data {
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable {
            // Written once by the reading thread before it signals `done`; read only after the wait.
            var data = Data()
        }
        let box = Box()
        Thread.detachNewThread {
            box.data = handle.readDataToEndOfFile()
            done.signal()
        }
        return {
            done.wait()
            return box.data
        }
    }
}

@Suite("The sluice binary against httpbin")
struct SluiceBinaryTests {
    let httpbin: String

    init() throws {
        httpbin = try InteropServers.httpbin().absoluteString
    }

    @Test func insecureIsExplicitAndWarns() async throws {
        // nginx's TLS port, with a certificate from a CA only the tests know.
        let url = try InteropServers.value("SLUICE_NGINX_TLS_URL") + "/small.json"
        let refused = try await Sluice.run([url])
        #expect(refused.status == ExitCode.tlsFailure.rawValue)
        #expect(refused.stdout.isEmpty)

        let insecure = try await Sluice.run(["--insecure", url])
        #expect(insecure.status == 0)
        #expect(
            insecure.stderr
                == "sluice: warning: TLS verification is off (tls.verifyPeer = false): certificates and host names are not checked, so anyone on the path can read and change the traffic\n"
        )
        #expect(insecure.stdout.count > 1_000)
    }

    @Test func aGetWithQueryAndHeader() async throws {
        let result = try await Sluice.run(["\(httpbin)/get", "q==café & co", "X-Test:yes"])
        #expect(result.status == 0)
        let echo = try result.json()
        #expect(echo["args"] as? [String: String] == ["q": "café & co"])
        #expect((echo["headers"] as? [String: String])?["X-Test"] == "yes")
    }

    @Test func aPostWithJSON() async throws {
        let result = try await Sluice.run(["POST", "\(httpbin)/post", "name=Ada", "age:=36", "tags:=[\"x\",\"y\"]", "nested:={\"a\":null}"])
        #expect(result.status == 0)
        let echo = try result.json()
        let json = try #require(echo["json"] as? [String: Any])
        #expect(json["name"] as? String == "Ada")
        #expect(json["age"] as? Int == 36)
        #expect(json["tags"] as? [String] == ["x", "y"])
        #expect((json["nested"] as? [String: Any])?["a"] is NSNull)
        #expect((echo["headers"] as? [String: String])?["Content-Type"] == "application/json")
    }

    @Test func aMultipartPostWithAFile() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        try Data("hello from a file\n".utf8).write(to: URL(fileURLWithPath: scratch.filePath("note.txt")))
        let result = try await Sluice.run(["\(httpbin)/post", "caption=Holiday", "note@\(scratch.filePath("note.txt"))"])
        #expect(result.status == 0)
        let echo = try result.json()
        #expect(echo["form"] as? [String: String] == ["caption": "Holiday"])
        #expect(echo["files"] as? [String: String] == ["note": "hello from a file\n"])
        #expect((echo["headers"] as? [String: String])?["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test func veryVerboseLogsHeadersWithAuthorizationRedacted() async throws {
        let result = try await Sluice.run(["-vv", "\(httpbin)/headers", "Authorization:Bearer s3cr3t-token"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("GET \(httpbin)/headers -> 200 OK"))
        #expect(result.stderr.contains("> Authorization: <redacted>"))
        #expect(result.stderr.contains("< Content-Type: application/json"))
        #expect(!result.stderr.contains("s3cr3t-token"))
        // The server did get the token: only the log hides it.
        #expect(result.text.contains("Bearer s3cr3t-token"))
    }

    @Test func theSecondCachedCallIsAHit() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        let url = "\(httpbin)/cache/60"
        let first = try await Sluice.run(["-v", "--cache=\(scratch.filePath("cache"))", url])
        let second = try await Sluice.run(["-v", "--cache=\(scratch.filePath("cache"))", url])
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stderr.hasSuffix(", 1 attempt, network\n"))
        #expect(second.stderr.hasSuffix(", 1 attempt, cache\n"))
        #expect(second.stdout == first.stdout)
        #expect(FileManager.default.fileExists(atPath: scratch.filePath("cache/cache.sqlite")))
    }

    @Test func aDownloadCutShortIsContinuedWithC() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        let file = scratch.filePath("range.bin")
        // httpbin sends these 100,000 bytes (its most) over 6 seconds. The first run gives up after
        // two seconds, with no automatic resume, and keeps what it has; -c continues from there.
        let url = "\(httpbin)/range/100000?duration=6&chunk_size=1000"
        let first = try await Sluice.run(["--timeout", "2", "--retry", "0", "--download", file, url])
        #expect(first.status == ExitCode.timedOut.rawValue)
        #expect(!FileManager.default.fileExists(atPath: file))
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: file + ".sluice-partial")[.size] as? Int)
        #expect(kept > 0 && kept < 100_000)

        let result = try await Sluice.run(["--download", file, "-c", url])
        #expect(result.status == 0)
        #expect(result.stderr == "sluice: saved 100000 bytes to \(file) (continued from byte \(kept))\n")
        // httpbin's /range bytes are the alphabet over and over.
        let expected = Data((0..<100_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == expected)
    }

    @Test func withoutCAnEarlierPartialIsDropped() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        let file = scratch.filePath("range.bin")
        let url = "\(httpbin)/range/100000?duration=6&chunk_size=1000"
        let first = try await Sluice.run(["--timeout", "2", "--retry", "0", "--download", file, url])
        #expect(first.status == ExitCode.timedOut.rawValue)
        // A partial file is there to drop, or the next run would prove nothing.
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: file + ".sluice-partial")[.size] as? Int)
        #expect(kept > 0)
        let fresh = try await Sluice.run(["--download", file, "\(httpbin)/range/3000"])
        #expect(fresh.stderr == "sluice: saved 3000 bytes to \(file)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data((0..<3_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }))
        #expect(!FileManager.default.fileExists(atPath: file + ".sluice-partial"))
    }

    @Test func badFlagsGiveExitCode2AndOneLine() async throws {
        for arguments in [["--bogus", httpbin], ["--retry", "x", httpbin], [httpbin, "not-an-item"], ["ftp://x/y"]] {
            let result = try await Sluice.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("sluice: "), "\(arguments)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func checkStatusMapsClassesToExitCodes() async throws {
        #expect(try await Sluice.run(["\(httpbin)/status/404"]).status == 0)
        #expect(try await Sluice.run(["--check-status", "\(httpbin)/status/404"]).status == 4)
        #expect(try await Sluice.run(["--check-status", "\(httpbin)/status/503"]).status == 5)
        #expect(try await Sluice.run(["--check-status", "\(httpbin)/status/204"]).status == 0)
    }

    @Test func aRefusedConnectionHasItsOwnExitCode() async throws {
        let dead = try MockWebServer()
        let url = dead.url("/x").absoluteString
        dead.shutdown()
        let result = try await Sluice.run([url])
        #expect(result.status == ExitCode.cannotConnect.rawValue)
        #expect(result.stderr.hasPrefix("sluice: "))
    }

    @Test func signingNeedsItsSecretFromTheEnvironment() async throws {
        let missing = try await Sluice.run(["--sign", "hmac:k1", "\(httpbin)/get"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "sluice: --sign hmac:k1 needs the secret in SLUICE_HMAC_SECRET\n")
        let signed = try await Sluice.run(["--sign", "hmac:k1", "\(httpbin)/headers"], environment: ["SLUICE_HMAC_SECRET": "shh"])
        #expect(signed.status == 0)
        let headers = try #require(try signed.json()["headers"] as? [String: String])
        #expect(headers["X-Key-Id"] == "k1")
        #expect(headers["X-Signature"]?.count == 64)
    }

    @Test func harAndHelp() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        let har = scratch.filePath("call.har")
        #expect(try await Sluice.run(["--har", har, "\(httpbin)/get"]).status == 0)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])
        #expect(((log["log"] as? [String: Any])?["entries"] as? [Any])?.count == 1)
        let help = try await Sluice.run(["--help"])
        #expect(help.status == 0)
        #expect(help.text == HelpText.text + "\n")
    }
}
