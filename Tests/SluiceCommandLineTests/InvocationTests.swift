import Foundation
import Sluice
import SluiceCommandLine
import SluiceTestSupport
import SluiceTesting
import Testing

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
        // Only a scheme at the start counts, as httpie has it: a URL in the query is not one.
        #expect(try Invocation.parse(["127.0.0.1:5000/redirect-to?url=http://example.com/"]).url == "http://127.0.0.1:5000/redirect-to?url=http://example.com/")
        #expect(try Invocation.parse([":/x"]).url == "http://localhost/x")
        // A host and port look like a scheme and its colon; without `//` they are not one.
        #expect(try Invocation.parse(["localhost:8080/x"]).url == "http://localhost:8080/x")
        #expect(try Invocation.parse(["HTTPS://example.com/"]).url == "HTTPS://example.com/")
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
        (["-c", "x"], "-c continues a download: give --download (-d) too"),
        (["--download=a.bin", "-o", "b.bin", "x"], "--download=a.bin and --output b.bin name two files: give one"),
        (["-S", "-d", "x"], "--stream prints the body as it arrives; a --download saves it: give one"),
        (["--pretty", "loud", "x"], #"--pretty must be all, colors, format or none, not "loud""#),
        (["--proxy", "http://p:3128", "x"], #"--proxy expects SCHEME:URL (like http:http://proxy:3128), not "http://p:3128""#),
        (["--verify", "", "x"], "--verify expects yes, no or a CA file"),
        (["--key", "k.pem", "x"], "--key needs --cert: the key belongs to a client certificate"),
        (["-vvvv", "x"], "-v can be given at most three times (-vvv)"),
        (["x", "-p"], "-p needs a value; see sluice --help"),
        (["-pq", "x"], #"--print takes letters from H, B, h and b, not "q""#),
        (["--max-redirects", "3", "x"], "--max-redirects limits --follow (-F, -L): give that too, or redirects are not followed at all"),
        (["-L", "--max-redirects", "-1", "x"], #"--max-redirects expects a whole number from 0 to 100, not "-1""#),
        (["-A", "ntlm", "x"], #"--auth-type must be basic, bearer or digest, not "ntlm""#),
        (["-A", "bearer", "x"], "--auth-type says how to send --auth: give --auth too"),
        (["--session", "../up", "x"], #"--session takes a name of letters, digits, - _ and . (not starting with .), not "../up""#),
        (["--gzip=yes", "x"], "--gzip takes no value"),
    ])
    func badCommandLinesSayWhatIsWrong(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Invocation.parse(arguments) }
    }

    /// Every short flag, alone, combined, and with its value in the same argument or the next.
    @Test(arguments: [
        (["-F", "x"], "follow", "true"), (["-L", "x"], "follow", "true"), (["--follow", "x"], "follow", "true"),
        (["x"], "follow", "false"), (["-L", "--max-redirects", "3", "x"], "maxRedirects", "3"),
        (["-p", "Hh", "x"], "print", "Hh"), (["-pHhb", "x"], "print", "Hhb"), (["-vp", "b", "x"], "print", "b"),
        (["-d", "x"], "download", ""), (["-do", "out.bin", "x"], "output", "out.bin"), (["--download=out.bin", "x"], "download", "out.bin"),
        (["-cd", "-o", "out.bin", "x"], "output", "out.bin"), (["-Lvv", "x"], "verbosity", "2"), (["-h"], "help", "true"),
        (["-b", "x"], "print", "b"), (["-S", "x"], "stream", "true"), (["--pretty=format", "x"], "pretty", "format"),
        (["--verify", "no", "x"], "insecure", "true"), (["--proxy", "http:http://p:3128", "x"], "proxy", "http://p:3128"),
        (["-j", "x"], "jsonGiven", "true"), (["x"], "jsonGiven", "false"),
        (["-f", "x"], "bodyKind", "form"), (["-fj", "x"], "bodyKind", "json"), (["-I", "x"], "ignoreStdin", "true"),
        (["-a", "u:p", "x"], "auth", "u:p"), (["-au:p", "-A", "digest", "x"], "authType", "digest"),
        (["-a", "t", "-Abearer", "x"], "authType", "bearer"), (["--session", "work", "x"], "session", "work"),
    ])
    func shortFlagsAndTheirValues(arguments: [String], property: String, expected: String) throws {
        let invocation = try Invocation.parse(arguments)
        let value: String =
            switch property {
            case "follow": String(invocation.follow)
            case "maxRedirects": invocation.maxRedirects.map(String.init) ?? "nil"
            case "print": invocation.print ?? "nil"
            case "download": invocation.download ?? "nil"
            case "output": invocation.output ?? "nil"
            case "stream": String(invocation.stream)
            case "pretty": invocation.pretty?.rawValue ?? "nil"
            case "insecure": String(invocation.insecure)
            case "proxy": invocation.proxies["http"] ?? "nil"
            case "jsonGiven": String(invocation.jsonGiven)
            case "verbosity": String(invocation.verbosity)
            case "bodyKind": invocation.bodyKind == .form ? "form" : "json"
            case "ignoreStdin": String(invocation.ignoreStdin)
            case "auth": invocation.auth ?? "nil"
            case "authType": invocation.authType?.rawValue ?? "nil"
            case "session": invocation.session ?? "nil"
            default: String(invocation.help)
            }
        #expect(value == expected)
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

    /// The names at the start of each line of --help's Options are exactly the names the parser
    /// knows, and the parser accepts each one (a value given where it takes one).
    @Test func helpListsExactlyTheFlagsTheParserAccepts() throws {
        let help = HelpText.text.components(separatedBy: "\n")
        let start = try #require(help.firstIndex(of: "Options:")), end = try #require(help.firstIndex(of: "Exit codes:"))
        var listed: [String] = []
        for line in help[(start + 1)..<end] where line.hasPrefix("  -") {
            // "  -F, -L, --follow    …" or "  --retry N    …": names up to the first that ends without a comma.
            for word in line.split(separator: " ") {
                let name = word.hasSuffix(",") ? word.dropLast() : word
                guard name.hasPrefix("-") else { break }
                listed.append(String(name.split(separator: "[").first ?? name))
                if !word.hasSuffix(",") { break }
            }
        }
        let known = Invocation.flags.flatMap(\.names)
        #expect(listed.sorted() == known.sorted())
        #expect(Set(known).count == known.count, "a name is given to two flags")
        for flag in Invocation.flags {
            for name in flag.names {
                var arguments = [name]
                if let value = flag.value, !flag.valueIsOptional { arguments.append(Self.sampleValue(value)) }
                arguments += name == "-c" || name == "--continue" ? ["--download", "x"] : ["x"]
                if name == "--max-redirects" { arguments.insert("-L", at: 0) }
                if name == "-A" || name == "--auth-type" { arguments.insert(contentsOf: ["-a", "u:p"], at: 0) }
                if name == "--key" { arguments.insert(contentsOf: ["--cert", "c.pem"], at: 0) }
                #expect(throws: Never.self, "\(arguments)") { try Invocation.parse(arguments) }
            }
        }
    }

    static func sampleValue(_ placeholder: String) -> String {
        switch placeholder {
        case "N": "3"
        case "SECONDS": "2"
        case "WHAT": "Hb"
        case "TYPE": "bearer"
        case "POLICY": "reload"
        case "hmac:KEYID": "hmac:k"
        case "REGION:SERVICE": "us-east-1:s3"
        case "sha256//BASE64": "sha256//AAAA"
        case "STYLE": "none"
        case "SCHEME:URL": "http:http://proxy:3128"
        case "yes|no|FILE": "yes"
        default: "value"
        }
    }

    @Test func helpCoversEveryFlagAndExitCode() {
        let help = HelpText.text
        for flag in [
            "-v, --verbose", "--har", "--cache[=DIR]", "--cache-policy", "--offline-fallback", "--retry", "--gzip", "--sign hmac:KEYID",
            "--aws-sigv4", "--oauth1", "--download", "--continue", "--timeout", "--http2", "--cert", "--key", "--pin",
            "--insecure", "--check-status", "-p, --print", "-h, --help", "--version", "-d, --download", "-F, -L, --follow", "--max-redirects",
            "-o, --output", "-b, --body", "-S, --stream", "--pretty", "--verify", "--proxy", "--keep-encoding", "--redact",
        ] {
            #expect(help.contains(flag), "help does not mention \(flag)")
        }
        for code in ExitCode.allCases { #expect(help.contains("  \(code.rawValue)"), "help does not list exit code \(code.rawValue)") }
    }
}
