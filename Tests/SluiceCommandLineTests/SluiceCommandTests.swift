import Foundation
import Sluice
import SluiceCommandLine
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

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
        #expect(refused.status == 60)  // curl's CURLE_PEER_FAILED_VERIFICATION, as curl exits
        #expect(refused.stdout.isEmpty)

        let insecure = try await Sluice.run(["--insecure", url])
        #expect(insecure.status == 0)
        #expect(
            insecure.stderr
                == "sluice: warning: TLS verification is off (tls.verifyPeer = false): certificates and host names are not checked, so anyone on the path can read and change the traffic\n"
        )
        #expect(insecure.stdout.count > 1_000)
    }

    /// `sluice URL | head -c 1`: once the reader has gone, the body's write fails and the call
    /// ends with curl's 23 and a message, whole or streamed; SIGPIPE would end it without a word.
    @Test(arguments: [false, true])
    func aReaderThatHasGoneEndsTheCallWithWriteFailed(streamed: Bool) async throws {
        let (process, stdout, stderr) = try Sluice.start((streamed ? ["--stream"] : []) + ["\(httpbin)/bytes/102400"])
        try stdout.fileHandleForReading.close()  // before the body arrives: the reader has gone
        let (status, reason, errors) = try await Blocking.run {
            let errors = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason, String(decoding: errors, as: UTF8.self))
        }
        #expect(reason == .exit, "ended by signal \(status)")
        #expect(status == 23)
        #expect(errors == "sluice: cannot write the body to standard output: Broken pipe\n")
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
        let first = try await Sluice.run(["-vv", "--cache=\(scratch.filePath("cache"))", url])
        let second = try await Sluice.run(["-vv", "--cache=\(scratch.filePath("cache"))", url])
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stderr.components(separatedBy: "\n").first?.hasSuffix(", network, cache miss") == true, "\(first.stderr)")
        #expect(second.stderr.components(separatedBy: "\n").first?.hasSuffix(", cache, cache hit") == true, "\(second.stderr)")
        #expect(second.stdout.count > 0)
        #expect(FileManager.default.fileExists(atPath: scratch.filePath("cache/cache.sqlite")))
    }

    @Test func aDownloadCutShortIsContinuedWithC() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        let file = scratch.filePath("range.bin")
        // httpbin sends these 100,000 bytes (its most) over 6 seconds. The first run gives up after
        // two seconds, with no automatic resume, and keeps what it has; -c continues from there.
        let url = "\(httpbin)/range/100000?duration=6&chunk_size=1000"
        let first = try await Sluice.run(["--timeout", "2", "--retry", "0", "-d", "-o", file, url])
        #expect(first.status == 28)  // curl's CURLE_OPERATION_TIMEDOUT
        #expect(!FileManager.default.fileExists(atPath: file))
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: file + ".sluice-partial")[.size] as? Int)
        #expect(kept > 0 && kept < 100_000)

        let result = try await Sluice.run(["--download=\(file)", "-c", url])
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
        let first = try await Sluice.run(["--timeout", "2", "--retry", "0", "-d", "-o", file, url])
        #expect(first.status == 28)
        // A partial file is there to drop, or the next run would prove nothing.
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: file + ".sluice-partial")[.size] as? Int)
        #expect(kept > 0)
        let fresh = try await Sluice.run(["-d", "-o", file, "\(httpbin)/range/3000"])
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
        let dead = Loopback.RefusedPort()
        let url = dead.url("/x").absoluteString
        let result = try await Sluice.run([url])
        withExtendedLifetime(dead) {}
        #expect(result.status == 7)  // curl's CURLE_COULDNT_CONNECT, as curl exits
        #expect(result.stderr.hasPrefix("sluice: "))
    }

    /// The body as the server sent it, fetched by the transport alone.
    func serverBytes(_ url: String) async throws -> Data {
        try await CurlTransport().send(HTTPRequest(url: try #require(URL(string: url))), context: RequestContext()).body
    }

    /// Piped, the body goes out byte for byte: JSON is not re-sorted, re-indented or unescaped.
    /// Both bodies are fixed by the server (not `/bytes?seed=`: httpbin seeds Python's one global
    /// random generator, which its other threads draw from while the tests run in parallel).
    @Test func pipedOutputIsTheBodysExactBytes() async throws {
        for url in ["\(httpbin)/response-headers?Content-Type=application/json&zz=1.10&aa=%C3%A9", "\(httpbin)/image/png"] {
            let expected = try await serverBytes(url)
            let piped = try await Sluice.run([url])
            #expect(piped.status == 0)
            #expect(!expected.isEmpty && piped.stdout == expected, "\(url)")
            // With the head asked for too, the body after it is still exact.
            let both = try await Sluice.run(["-p", "hb", url])
            #expect(both.stdout.count > expected.count && both.stdout.suffix(expected.count) == expected, "\(url)")
        }
    }

    /// On a terminal: JSON laid out from its tokens (order and escapes as sent, four-space
    /// indent), binary described, text with its terminal sequences escaped.
    @Test func onATerminalBodiesAreShownSafely() async throws {
        let json = try await Sluice.runOnATerminal(["-p", "b", "\(httpbin)/response-headers?Content-Type=application/json&zz=1.10&aa=%C3%A9"])
        #expect(json.status == 0)
        #expect(
            json.text == """
                {
                    "Content-Length": "136",
                    "Content-Type": [
                        "application/json",
                        "application/json"
                    ],
                    "aa": "\\u00e9",
                    "zz": "1.10"
                }

                """)
        let binary = try await Sluice.runOnATerminal(["-p", "b", "\(httpbin)/bytes/64"])
        #expect(binary.text == "(64 bytes of binary data not shown on a terminal: use --download FILE or redirect the output)\n")
        // "hi", ESC [2J (clear the screen), "there", CRLF, "x", a lone CR.
        let text = try await Sluice.runOnATerminal(["-p", "b", "\(httpbin)/base64/aGkbWzJKdGhlcmUNCngN"])
        #expect(text.text == "hi\\u{1B}[2Jthere\nx\\r\n")
    }

    /// As httpie and curl: a redirect is printed as it is unless --follow, -F or -L asks.
    @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
        let plain = try await Sluice.run(["-p", "h", "\(httpbin)/redirect/2"])
        #expect(plain.status == 0)
        #expect(plain.text.hasPrefix("HTTP/1.1 302"))
        #expect(try await Sluice.run(["--check-status", "\(httpbin)/redirect/2"]).status == 3)
        for flag in ["-L", "-F", "--follow"] {
            let followed = try await Sluice.run([flag, "\(httpbin)/redirect/2"])
            #expect(followed.status == 0, "\(flag)")
            #expect(try followed.json()["url"] as? String == "\(httpbin)/get", "\(flag)")
        }
        let tooMany = try await Sluice.run(["-L", "--max-redirects", "1", "\(httpbin)/redirect/2"])
        #expect(tooMany.status == 47)  // curl's CURLE_TOO_MANY_REDIRECTS
        #expect(tooMany.stdout.isEmpty && tooMany.stderr.hasPrefix("sluice: "))
    }

    /// A body cut short is curl's 18, and nothing of it is printed; no answer at all is 52.
    @Test func aServerThatHangsUpGivesCurlsCodes() async throws {
        let server = try MockWebServer()
        server.enqueue(
            MockWebServer.Response(status: 200, body: String(repeating: "x", count: 1000)).with(fault: .disconnectAfterBodyBytes(10)),
            MockWebServer.Response(status: 200, body: "never").with(fault: .disconnectBeforeResponse))
        let cut = try await Sluice.run([server.url("/cut").absoluteString])
        #expect(cut.status == 18)
        #expect(cut.stdout.isEmpty && cut.stderr.hasPrefix("sluice: "))
        let nothing = try await Sluice.run([server.url("/nothing").absoluteString])
        #expect(nothing.status == 52)
    }

    @Test func aDelayPastTimeoutExitsWith28AsCurlDoes() async throws {
        let result = try await Sluice.run(["--timeout", "1", "\(httpbin)/delay/5"])
        #expect(result.status == 28)
        #expect(result.stdout.isEmpty && result.stderr.hasPrefix("sluice: "))
    }

    @Test func anUnknownHostExitsWith6AsCurlDoes() async throws {
        // .invalid never resolves (RFC 2606).
        let result = try await Sluice.run(["http://no-such-host.invalid/x"])
        #expect(result.status == 6)
        #expect(result.stderr.hasPrefix("sluice: ") && result.stdout.isEmpty)
    }

    @Test func ctrlCEndsTheCallWith130() async throws {
        let server = try MockWebServer()
        server.enqueue(MockWebServer.Response(status: 200, body: "late").with(headersDelay: .seconds(300)))
        let (process, stdout, stderr) = try Sluice.start([server.url("/slow").absoluteString])
        // Once the request is at the server, the program is set up and waiting for the answer.
        try await Wait.until("the request reached the server") { !server.requests.isEmpty }
        let interrupted = ContinuousClock.now
        process.interrupt()  // SIGINT, as Ctrl-C sends
        let result = try await Blocking.run {
            let errors = Thread.detachedRead(stderr.fileHandleForReading)
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason, out, String(decoding: errors(), as: UTF8.self))
        }
        #expect(result.0 == 130 && result.1 == .exit)  // exited with 130, not killed by the signal
        #expect(result.2.isEmpty)
        #expect(result.3 == "sluice: interrupted\n")
        #expect(interrupted.duration(to: .now) < TestTiming.scaled(.seconds(30)), "the 300 s call was cancelled, not waited for")
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

    @Test func printedResponseHeadsShowControlCharactersEscaped() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 200, reason: "OK\u{1B}]0;owned\u{07}", headers: [("X-Note", "caf\u{E9} \u{9B}2J")], body: Data("fine".utf8)))
        let result = try await Sluice.run(["--print", "h", server.url("/head").absoluteString])
        #expect(result.status == 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.hasPrefix(#"HTTP/1.1 200 OK\u{1B}]0;owned\u{07}"#), "\(text)")
        #expect(text.contains(#"X-Note: caf\#u{E9} \u{009B}2J"#), "\(text)")
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
    }

    /// Issue 27, item 8: what reaches the terminal by every other path is escaped too: a JSON
    /// string's C1 and bidirectional controls (JSON lets them stand raw; they are shown as JSON
    /// escapes, so the text is the same JSON), a reason phrase in an error line, a field name.
    @Test func jsonStringsErrorLinesAndFieldNamesNeverReachTheTerminalRaw() async throws {
        let server = try MockWebServer()
        let json = Data(#"{"name":"evil\#u{9B}2J\#u{202E}gnp.exe","ok":1}"#.utf8)
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")], body: json))
        let shown = try await Sluice.runOnATerminal(["-p", "b", server.url("/j").absoluteString])
        #expect(shown.text.contains(#""name": "evil\u009b2J\u202egnp.exe""#), "\(shown.text)")
        #expect(!shown.text.unicodeScalars.contains { TerminalText.isUnsafe($0, keepingLineBreaks: true) && $0 != "\r" })
        // The same JSON, escaped: it still parses to the value the server sent.
        let laidOut = shown.text.replacing("\r\n", with: "\n")
        let parsed = try JSONSerialization.jsonObject(with: Data(laidOut.utf8)) as? [String: Any]
        #expect(parsed?["name"] as? String == "evil\u{9B}2J\u{202E}gnp.exe")

        server.enqueue(.init(status: 500, reason: "Oops\u{1B}]0;owned\u{07}\u{9B}2J\u{202E}", body: Data()))
        let failed = try await Sluice.run(["--check-status", "-p", "h", server.url("/e").absoluteString])
        #expect(failed.status == 5)
        #expect(failed.stderr == #"sluice: warning: HTTP 500 Oops\u{1B}]0;owned\u{07}\u{009B}2J\u{202E}"# + "\n", "\(failed.stderr)")

        server.enqueue(.init(status: 200, headers: [("X-\u{202E}Name", "v")], body: Data()))
        let head = try await Sluice.run(["-p", "h", server.url("/f").absoluteString])
        #expect(!head.text.unicodeScalars.contains { $0.value == 0x202E }, "\(head.text)")
    }
}
