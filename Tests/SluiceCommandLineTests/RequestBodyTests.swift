import Foundation
import Sluice
import SluiceCommandLine
import SluiceTestSupport
import SluiceTesting
import Testing

/// httpie's body conventions, as httpbin reports what it received.
@Suite("sluice request bodies and credentials against httpbin")
struct RequestBodyTests {
    let httpbin: String

    init() throws {
        httpbin = try InteropServers.httpbin().absoluteString
    }

    @Test func formFieldsAreURLEncoded() async throws {
        for flag in ["--form", "-f"] {
            let result = try await Sluice.run([flag, "POST", "\(httpbin)/post", "name=Ada", "city=New York", "sum=1+1&2"])
            #expect(result.status == 0)
            let json = try result.json()
            #expect(json["form"] as? [String: String] == ["name": "Ada", "city": "New York", "sum": "1+1&2"])
            #expect((json["headers"] as? [String: String])?["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
        }
        let refused = try await Sluice.run(["--form", "POST", "\(httpbin)/post", "n:=1"])
        #expect(refused.status == 2)
        #expect(refused.stderr == "sluice: n:=1 is raw JSON, which a form cannot carry: leave out --form\n")
    }

    @Test func aFormWithAFileIsMultipart() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        let file = scratch.filePath("note.txt")
        try Data("file text\n".utf8).write(to: URL(fileURLWithPath: file))
        let result = try await Sluice.run(["-f", "POST", "\(httpbin)/post", "caption=Hi", "note@\(file)"])
        #expect(result.status == 0)
        let json = try result.json()
        #expect(json["form"] as? [String: String] == ["caption": "Hi"])
        #expect(json["files"] as? [String: String] == ["note": "file text\n"])
        #expect((json["headers"] as? [String: String])?["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test func fieldsFromFilesAreTextOrRawJSON() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-cli")
        let text = scratch.filePath("bio.txt"), json = scratch.filePath("tags.json")
        try Data("Born in \"1815\"\n".utf8).write(to: URL(fileURLWithPath: text))
        try Data("[\"math\", 1.10]\n".utf8).write(to: URL(fileURLWithPath: json))
        let result = try await Sluice.run(["POST", "\(httpbin)/post", "bio=@\(text)", "tags:=@\(json)", "n:=1.10"])
        #expect(result.status == 0)
        let body = try result.json()
        // The raw JSON goes out as written: 1.10 stays 1.10.
        #expect(body["data"] as? String == #"{"bio": "Born in \"1815\"\n", "tags": ["math", 1.10], "n": 1.10}"#)
        let binary = scratch.filePath("bytes.bin")
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: binary))
        let notText = try await Sluice.run(["POST", "\(httpbin)/post", "bio=@\(binary)"])
        #expect(notText.status == 2 && notText.stderr == "sluice: bio=@\(binary): \(binary) is not UTF-8 text\n")
        let badJSON = try await Sluice.run(["POST", "\(httpbin)/post", "tags:=@\(text)"])
        #expect(badJSON.status == 2 && badJSON.stderr == "sluice: tags:=@\(text) is not valid JSON\n")
        let missing = try await Sluice.run(["POST", "\(httpbin)/post", "bio=@\(scratch.filePath("none.txt"))"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("sluice: bio=@\(scratch.filePath("none.txt")): cannot read "))
    }

    @Test func standardInputIsTheBodyUnlessThereAreItemsOrMinusI() async throws {
        let piped = Data(#"{"a": 1.10, "z": [true]}"#.utf8)
        let result = try await Sluice.run(["\(httpbin)/post"], input: piped)
        #expect(result.status == 0)
        let json = try result.json()
        #expect(json["data"] as? String == String(decoding: piped, as: UTF8.self))
        #expect((json["headers"] as? [String: String])?["Content-Type"] == "application/json")
        let form = try await Sluice.run(["-f", "\(httpbin)/post"], input: Data("a=1&b=two".utf8))
        #expect(try form.json()["form"] as? [String: String] == ["a": "1", "b": "two"])
        // -I: standard input is not read; a GET goes out without a body.
        let ignored = try await Sluice.run(["-I", "\(httpbin)/get"], input: piped)
        #expect(ignored.status == 0)
        #expect(try ignored.json()["url"] as? String == "\(httpbin)/get")
    }

    /// --offline prints what would be sent, to a port where nothing listens: a send would fail.
    /// What the user typed is shown as typed, so the output can be pasted and run; --redact
    /// hides it, and what a middleware adds is hidden either way.
    @Test func offlinePrintsTheRequestAndSendsNothing() async throws {
        let dead = Loopback.RefusedPort()
        let url = dead.url("/notes?page=2&token=T0K3N").absoluteString
        let result = try await Sluice.run(["--offline", "-a", "ann:s3cret", "POST", url, "name=Ada", "X-Trace:1"])
        #expect(result.status == 0)
        let lines = result.text.components(separatedBy: "\n")
        #expect(lines.first == "POST /notes?page=2&token=T0K3N HTTP/1.1")
        #expect(lines.contains("Host: 127.0.0.1:\(dead.port)"))
        #expect(lines.contains { $0.hasPrefix("User-Agent: Sluice/") })
        #expect(lines.contains("Authorization: Basic " + Data("ann:s3cret".utf8).base64EncodedString()))
        #expect(lines.contains("X-Trace: 1"))
        #expect(lines.contains("Content-Length: 15"))
        #expect(lines.contains(#"{"name": "Ada"}"#))

        let redacted = try await Sluice.run(["--offline", "--redact", "-a", "ann:s3cret", "POST", url, "name=Ada"])
        let redactedLines = redacted.text.components(separatedBy: "\n")
        #expect(redactedLines.first == "POST /notes?page=2&token=<redacted> HTTP/1.1")
        #expect(redactedLines.contains("Authorization: <redacted>"))
        #expect(!redacted.text.contains("T0K3N") && !redacted.text.contains(Data("ann:s3cret".utf8).base64EncodedString()))

        // HMAC signing adds a signature the user never typed: hidden without --redact too.
        let signed = try await Sluice.run(["--offline", "--sign", "hmac:k1", url], environment: ["SLUICE_HMAC_SECRET": "hmac-secret"])
        let signedLines = signed.text.components(separatedBy: "\n")
        #expect(signedLines.first?.contains("token=T0K3N") == true)
        #expect(signedLines.contains("X-Signature: <redacted>"), "\(signedLines)")
        withExtendedLifetime(dead) {}
    }

    @Test func credentialsForBasicBearerAndDigest() async throws {
        #expect(try await Sluice.run(["--check-status", "\(httpbin)/basic-auth/ann/s3cret"]).status == 4)
        let basic = try await Sluice.run(["-a", "ann:s3cret", "\(httpbin)/basic-auth/ann/s3cret"])
        #expect(try basic.json()["authenticated"] as? Bool == true)
        let bearer = try await Sluice.run(["-A", "bearer", "-a", "t0k3n", "\(httpbin)/bearer"])
        #expect(try bearer.json()["token"] as? String == "t0k3n")
        let digest = try await Sluice.run(["--auth-type", "digest", "--auth", "ann:s3cret", "\(httpbin)/digest-auth/auth/ann/s3cret"])
        #expect(digest.status == 0)
        #expect(try digest.json()["user"] as? String == "ann")
        let wrong = try await Sluice.run(["--check-status", "-A", "digest", "-a", "ann:wrong", "\(httpbin)/digest-auth/auth/ann/s3cret"])
        #expect(wrong.status == 4)
        // A user without a password is asked for one on a terminal; there is none here.
        let bad = try await Sluice.run(["-a", "ann", "\(httpbin)/get"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "sluice: --auth ann has no password and there is no terminal to ask for one on: give USER:PASSWORD\n")
        let noUser = try await Sluice.run(["-a", ":s3cret", "\(httpbin)/get"])
        #expect(noUser.status == 2 && noUser.stderr == "sluice: --auth expects USER:PASSWORD for basic authentication\n")
        let spaced = try await Sluice.run(["-A", "bearer", "-a", "t0k 3n", "\(httpbin)/get"])
        #expect(spaced.status == 2 && spaced.stderr == "sluice: --auth expects a token without spaces for bearer authentication\n")
        let digestWithoutUser = try await Sluice.run(["-A", "digest", "-a", ":pw", "\(httpbin)/get"])
        #expect(digestWithoutUser.stderr == "sluice: --auth expects USER:PASSWORD for digest authentication\n")
    }

    /// --print H shows the head curl wrote: Host with its port, curl's User-Agent and
    /// Content-Length, the version used, the credentials as typed (--redact hides them).
    @Test func printHShowsTheRequestAsSent() async throws {
        let port = try #require(URL(string: httpbin)?.port)
        let result = try await Sluice.run(["-p", "H", "-a", "ann:s3cret", "POST", "\(httpbin)/post?api_key=K3Y", "name=Ada"])
        #expect(result.status == 0)
        let lines = result.text.components(separatedBy: "\n")
        #expect(lines.first == "POST /post?api_key=K3Y HTTP/1.1")
        #expect(lines.contains("Host: 127.0.0.1:\(port)"))
        #expect(lines.contains { $0.hasPrefix("User-Agent: Sluice/") && $0.contains("libcurl/") })
        #expect(lines.contains("Content-Length: 15"))
        #expect(lines.contains("Authorization: Basic " + Data("ann:s3cret".utf8).base64EncodedString()))
        #expect(lines.contains("Accept: application/json, */*;q=0.5"))
        let redacted = try await Sluice.run(["-p", "H", "--redact", "-a", "ann:s3cret", "POST", "\(httpbin)/post?api_key=K3Y", "name=Ada"])
        #expect(redacted.text.components(separatedBy: "\n").first == "POST /post?api_key=<redacted> HTTP/1.1")
        #expect(redacted.text.contains("Authorization: <redacted>") && !redacted.text.contains("K3Y"))
    }

    /// Over HTTP/2 the head shows the version curl used.
    @Test func theHeadSaysWhichVersionWasUsed() async throws {
        let h2c = try InteropServers.value("SLUICE_NGINX_H2C_URL")
        let result = try await Sluice.run(["--http2", "-p", "H", "\(h2c)/small.json"])
        #expect(result.status == 0)
        #expect(result.text.hasPrefix("GET /small.json HTTP/2\n"))
        let plain = try await Sluice.run(["-p", "H", "\(try InteropServers.value("SLUICE_NGINX_URL"))/small.json"])
        #expect(plain.text.hasPrefix("GET /small.json HTTP/1.1\n"))
    }
}

@Suite("sluice --session against httpbin")
struct SessionTests {
    let httpbin: String

    init() throws {
        httpbin = try InteropServers.httpbin().absoluteString
    }

    @Test func aSessionCarriesCookiesHeadersAndCredentialsToTheNextRun() async throws {
        let config = try TemporaryDirectory(prefix: "sluice-session")
        let environment = ["XDG_CONFIG_HOME": config.path]
        let first = try await Sluice.run(
            ["--session", "work", "-a", "ann:s3cret", "\(httpbin)/cookies/set?flavour=oat", "X-Team:blue"], environment: environment)
        #expect(first.status == 0)
        let port = try #require(URL(string: httpbin)?.port)
        let file = config.path + "/sluice/sessions/127.0.0.1_\(port)/work.json"
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let folderMode = try FileManager.default.attributesOfItem(atPath: (file as NSString).deletingLastPathComponent)[.posixPermissions] as? Int
        #expect(folderMode == 0o700)

        let second = try await Sluice.run(["--session", "work", "\(httpbin)/anything"], environment: environment)
        #expect(second.status == 0)
        let headers = try #require(try second.json()["headers"] as? [String: String])
        #expect(headers["Cookie"] == "flavour=oat")
        #expect(headers["X-Team"] == "blue")
        #expect(headers["Authorization"] == "Basic " + Data("ann:s3cret".utf8).base64EncodedString())

        // An item given now wins over the one kept, and is kept in its place.
        let third = try await Sluice.run(["--session", "work", "\(httpbin)/anything", "X-Team:red"], environment: environment)
        #expect((try third.json()["headers"] as? [String: String])?["X-Team"] == "red")
        let fourth = try await Sluice.run(["--session", "work", "\(httpbin)/anything"], environment: environment)
        #expect((try fourth.json()["headers"] as? [String: String])?["X-Team"] == "red")
        // Without --session nothing is sent from it.
        let without = try await Sluice.run(["\(httpbin)/anything"], environment: environment)
        #expect((try without.json()["headers"] as? [String: String])?["Cookie"] == nil)
    }

    @Test func aDamagedSessionFileIsAUsageErrorNamingIt() async throws {
        let config = try TemporaryDirectory(prefix: "sluice-session")
        let port = try #require(URL(string: httpbin)?.port)
        let folder = config.path + "/sluice/sessions/127.0.0.1_\(port)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: folder + "/broken.json"))
        let result = try await Sluice.run(["--session", "broken", "\(httpbin)/get"], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "sluice: the session file \(folder)/broken.json is not a sluice session (not valid JSON): remove it or use another name\n")
        let badName = try await Sluice.run(["--session", "../x", "\(httpbin)/get"])
        #expect(badName.status == 2)
    }
}
