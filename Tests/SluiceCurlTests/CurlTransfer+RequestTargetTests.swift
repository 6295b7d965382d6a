import Foundation
import Sluice
import SluiceCurl
import SluiceTesting
import Testing

/// A URL's query goes to curl as the request target (what costs it less); what goes on the
/// wire must stay what curl would send for the whole URL.
@Suite("CurlTransport's request target")
struct CurlTransferRequestTargetTests {
    let server: MockWebServer
    init() throws { server = try MockWebServer() }

    @Test(arguments: [
        ("/a?b=1&c=%20d", "/a?b=1&c=%20d"),
        ("/search?q=caf%C3%A9&tags=a,b;c&x=?&y=/", "/search?q=caf%C3%A9&tags=a,b;c&x=?&y=/"),
        ("/a?b=1#part?c", "/a?b=1"),  // the fragment is never sent
        ("/p#x?y", "/p"),  // a `?` after a `#` is the fragment's
        ("/?", "/?"),  // an empty query keeps its `?`
        ("/a/../b/./c?q=1", "/b/c?q=1"),  // dot segments go as curl removes them
        ("/static/..?q=1", "/?q=1"),
    ])
    func theTargetOnTheWireIsWhatCurlSendsForTheWholeURL(path: String, expected: String) async throws {
        server.enqueue(.init(status: 200, body: "ok"))
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
        let transport = makeTransport { $0.recordsRequestHeads = true }
        let response = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        #expect(server.requests.first?.target == expected)
        let head = try #require(response.metrics?.requestHead)
        #expect(head.hasPrefix("GET \(expected) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"))
    }

    @Test func aRecycledHandleDoesNotKeepTheLastTarget() async throws {
        // One handle, one request with a query then one without: the second must not go to the
        // first one's target.
        let transport = makeTransport { $0.maxConnections = 1 }
        for (path, expected) in [("/one?x=1", "/one?x=1"), ("/two", "/two"), ("/three?y", "/three?y"), ("/four#f", "/four")] {
            server.enqueue(.init(status: 200, body: "ok"))
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
            _ = try await transport.send(HTTPRequest(url: url), context: RequestContext())
            #expect(server.requests.last?.target == expected)
        }
    }

    @Test func throughAProxyTheTargetIsTheWholeURLQueryIncluded() async throws {
        server.setHandler { _ in .init(status: 200, body: "via proxy") }
        let transport = makeTransport { $0.proxy = server.baseURL.absoluteString }
        let url = try #require(URL(string: "http://example.invalid/x?a=1&b=2#f"))
        let response = try await transport.send(HTTPRequest(url: url), context: RequestContext())
        #expect(response.text == "via proxy")
        #expect(server.requests.first?.target == "http://example.invalid/x?a=1&b=2")
    }

    @Test func digestCredentialsAnswerForTheWholeTargetQueryIncluded() async throws {
        server.enqueue(
            .init(status: 401, headers: [("WWW-Authenticate", #"Digest realm="r", nonce="n1", qop="auth", algorithm=MD5"#)], body: "who?"),
            .init(status: 200, body: "in"))
        let url = server.url("/private?page=2&sort=name")
        var configuration = CurlTransport.Configuration()
        configuration.digestCredentials = .init(user: "ann", password: "s3cret", for: url)
        let response = try await CurlTransport(configuration: configuration).send(HTTPRequest(url: url), context: RequestContext())
        #expect(response.text == "in")
        #expect(server.requests.map(\.target) == ["/private?page=2&sort=name", "/private?page=2&sort=name"])
        // The digest's `uri` is the target as sent, query and all (RFC 7616 section 3.4).
        #expect(server.requests[1].header("Authorization")?.contains(#"uri="/private?page=2&sort=name""#) == true)
    }

    @Test(arguments: [("/x?q=", "CURLOPT_REQUEST_TARGET"), ("/x/", "CURLOPT_URL")])
    func aURLCurlRefusesIsATypedErrorThatDoesNotQuoteIt(prefix: String, option: String) async throws {
        // Over curl's limit of 8,000,000 bytes, with a password in it.
        let long = String(repeating: "a", count: 8_000_001)
        let url = try #require(URL(string: "http://ann:s3cret@127.0.0.1:\(server.port)\(prefix)\(long)"))
        let error = await #expect(throws: SluiceError.self) {
            try await makeTransport().send(HTTPRequest(url: url), context: RequestContext())
        }
        #expect(error?.code == .invalidURL)
        // With a query, the path and query went as the target; without, the whole URL.
        let bytes = option == "CURLOPT_URL" ? url.absoluteString.utf8.count : prefix.utf8.count + long.utf8.count
        #expect(error?.message == "curl refused the URL (\(option), \(bytes) bytes): A libcurl function was given a bad argument")
        #expect(error.map { "\($0)".contains("s3cret") || "\($0)".count > 1_000 } == false)
        #expect(server.requests.isEmpty)
    }
}
