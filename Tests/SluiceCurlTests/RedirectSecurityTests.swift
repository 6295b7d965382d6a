import Foundation
import Sluice
import SluiceCurl
import SluiceTesting
import Testing

@Suite("Redirects keep credentials on their host")
struct RedirectSecurityTests {
    @Test func authorizationAndCookieAreNotForwardedToAnotherHost() async throws {
        let landing = try MockWebServer()
        landing.setHandler { _ in .init(status: 200, body: "landed") }
        let origin = try MockWebServer()
        // 127.0.0.1 sends the client on to localhost: another host name, as far as credentials go.
        origin.enqueue(.init(status: 302, headers: [("Location", "http://localhost:\(landing.port)/landing")]))
        var request = HTTPRequest(url: origin.url("/start"))
        try request.headers.set(name: "Authorization", value: "Bearer s3cr3t")
        try request.headers.set(name: "Cookie", value: "session=abc")
        try request.headers.set(name: "X-Harmless", value: "kept")
        let response = try await CurlTransport().send(request, context: RequestContext())
        #expect(response.status == .ok)
        let sent = try #require(landing.requests.first)
        #expect(sent.header("Authorization") == nil)
        #expect(sent.header("Cookie") == nil)
        #expect(sent.header("X-Harmless") == "kept")
        #expect(origin.requests.first?.header("Authorization") == "Bearer s3cr3t")
    }

    @Test func onTheSameHostTheyAreKept() async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 302, headers: [("Location", "/next")]), .init(status: 200, body: "ok"))
        var request = HTTPRequest(url: server.url("/start"))
        try request.headers.set(name: "Authorization", value: "Bearer s3cr3t")
        _ = try await CurlTransport().send(request, context: RequestContext())
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer s3cr3t", "Bearer s3cr3t"])
    }
}
