import Foundation
import Sluice
import SluiceCurl
import SluiceLogging
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite struct CurlCommandTests {
    @Test func redactedByDefault() {
        #expect(
            CurlCommand(loginRequest()).command == """
                curl -X 'POST' 'https://api.example.com/login?user=ann&token=<redacted>' -H 'Content-Type: application/json' \
                -H 'Authorization: <redacted>' -H 'Accept: application/json' --data-binary '{"password":"<redacted>","user":"ann"}'
                """)
    }

    @Test func quotesBinaryFilesStreamsAndEmptyFields() {
        let url = URL(string: "https://example.com/it's")!
        #expect(
            CurlCommand(HTTPRequest(url: url, headers: ["X-Empty": ""])).command
                == #"curl 'https://example.com/it'\''s' -H 'X-Empty;'"#)
        #expect(CurlCommand(HTTPRequest(method: .head, url: url)).command == #"curl --head 'https://example.com/it'\''s'"#)
        #expect(
            CurlCommand(HTTPRequest(method: .post, url: url, body: .bytes(Data([0, 255, 10])))).command
                == #"printf '\000\377\012' | curl -X 'POST' 'https://example.com/it'\''s' --data-binary @-"#)
        #expect(
            CurlCommand(HTTPRequest(method: .put, url: url, body: .file(URL(fileURLWithPath: "/tmp/a b")))).command
                == #"curl -X 'PUT' 'https://example.com/it'\''s' --data-binary '@/tmp/a b'"#)
        let stream = AsyncThrowingStream<Data, any Error> { $0.finish() }
        #expect(
            CurlCommand(HTTPRequest(method: .post, url: url, body: .stream(.oneShot(length: nil, stream)))).command.hasSuffix(
                "  # the request's stream body is not shown: it can be read only once"))
    }

    @Test func theCommandRunsAgainstHttpbin() async throws {
        let base = try InteropServers.value("SLUICE_HTTPBIN_URL")
        let url = URL(string: base + "/anything/it's?q=a%20b&token=t0k")!
        let request = HTTPRequest(
            method: .post, url: url,
            headers: ["Content-Type": "application/octet-stream", "X-Quote": "it's \"quoted\"", "Authorization": "Bearer abc"],
            body: .bytes(Data([0, 1, 2, 39, 255])))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", CurlCommand(request, redaction: .disabled).command + " --silent --show-error"]
        let (data, status) = try await Blocking.output(of: process)
        #expect(status == 0)
        let echo = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(echo["method"] as? String == "POST")
        #expect(echo["args"] as? [String: String] == ["q": "a b", "token": "t0k"])
        let headers = try #require(echo["headers"] as? [String: String])
        #expect(headers["X-Quote"] == "it's \"quoted\"")
        #expect(headers["Authorization"] == "Bearer abc")
        #expect(echo["data"] as? String == "data:application/octet-stream;base64," + Data([0, 1, 2, 39, 255]).base64EncodedString())
    }

    /// A body that starts with `@` would make curl upload the file it names: it is written as
    /// --data-raw, as browsers' devtools do.
    @Test func aBodyThatStartsWithAtIsDataRawSoPastingNeverUploadsAFile() {
        let url = URL(string: "https://example.com/x")!
        let at = CurlCommand(HTTPRequest(method: .post, url: url, body: .bytes(Data("@/etc/passwd".utf8)))).command
        #expect(at == "curl -X 'POST' 'https://example.com/x' --data-raw '@/etc/passwd'")
        let plain = CurlCommand(HTTPRequest(method: .post, url: url, body: .bytes(Data("a=1".utf8)))).command
        #expect(plain == "curl -X 'POST' 'https://example.com/x' --data-binary 'a=1'")
    }
}
