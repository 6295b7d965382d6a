import Foundation
import Sluice
import SluiceCurl
import SluiceResilience
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 44, item 2: one key per call, on every resend of it, against a server that records them.
@Suite struct IdempotencyKeyMiddlewareTests {
    static func client(_ extra: [any Middleware] = []) -> Client {
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(IdempotencyKeyMiddleware())
        builder.add(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(1)))))
        for middleware in extra { builder.add(middleware) }
        return builder.build()
    }

    /// A POST retried after a 503 and redirected by a 307 carries one key to the end; the next
    /// call carries another; a GET carries none.
    @Test func everyResendOfACallCarriesItsOneKey() async throws {
        let server = try MockWebServer()
        server.enqueue(
            .init(status: 503, body: "busy"), .init(status: 307, headers: [("Location", "/charges/2")], body: ""),
            .init(status: 200, body: "charged"), .init(status: 200, body: "charged again"), .init(status: 200, body: "read"))
        let client = Self.client()
        var request = HTTPRequest(method: .post, url: server.url("/charges"))
        request.body = .bytes(Data("amount=100".utf8))
        #expect(try await client.send(request).text == "charged")
        #expect(try await client.send(request).text == "charged again")
        #expect(try await client.send(HTTPRequest(url: server.url("/charges/2"))).text == "read")

        let keys = server.requests.map { $0.header("Idempotency-Key") }
        #expect(server.requests.map(\.target) == ["/charges", "/charges", "/charges/2", "/charges", "/charges/2"])
        let first = try #require(keys[0])
        #expect(keys[0..<3].allSatisfy { $0 == first }, "the retry and the redirect hop resend the call's key: \(keys)")
        #expect(first.count == 36 && first == first.lowercased(), "a lowercase UUID: \(first)")
        let second = try #require(keys[3])
        #expect(second != first, "two calls never share a key")
        #expect(keys[4] == nil, "a GET gets none")
    }

    /// The default key is a version 4 UUID, in lowercase, and no two are alike.
    @Test func theDefaultKeyIsARandomUUID() throws {
        let keys = (0..<1000).map { _ in IdempotencyKeyMiddleware.randomKey() }
        #expect(Set(keys).count == 1000)
        for key in keys.prefix(20) {
            let uuid = try #require(UUID(uuidString: key), "\(key)")
            #expect(uuid.uuidString.lowercased() == key)
            let characters = Array(key)
            #expect(characters[14] == "4", "version 4: \(key)")
            #expect("89ab".contains(characters[19]), "the variant: \(key)")
        }
    }

    /// A key the caller set is kept, quoted keys are structured-field strings, and a key no field
    /// can carry is refused before anything is sent.
    @Test func aCallersOwnKeyIsKeptAndKeysAreWrittenAsConfigured() async throws {
        let harness = MiddlewareHarness(IdempotencyKeyMiddleware(), replies: [.status(.ok), .status(.ok)])
        var own = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/orders")!)
        own.headers = ["Idempotency-Key": "order-7"]
        _ = try await harness.send(own)
        #expect(harness.transport.requests.last?.request.headers["Idempotency-Key"] == "order-7")

        let quoted = MiddlewareHarness(
            IdempotencyKeyMiddleware(configuration: .init(quoted: true, makeKey: { #"a"b\c"# })), replies: [.status(.ok)])
        _ = try await quoted.send(HTTPRequest(method: .patch, url: URL(string: "https://api.example.com/orders/7")!))
        #expect(quoted.transport.requests.last?.request.headers["Idempotency-Key"] == #""a\"b\\c""#)

        let broken = MiddlewareHarness(IdempotencyKeyMiddleware(configuration: .init(makeKey: { "k\r\nX-Evil: 1" })), replies: [.status(.ok)])
        let error = await #expect(throws: SluiceError.self) {
            try await broken.send(HTTPRequest(method: .post, url: URL(string: "https://api.example.com/orders")!))
        }
        #expect(error?.code == .invalidHeader)
        #expect(broken.transport.requests.isEmpty)
    }

    /// Issue 53, item 12: with `quoted: true`, non-ASCII and U+2028 went raw inside the
    /// sf-string; RFC 8941 §3.3.3 allows printable ASCII only, so such a key is refused with what
    /// was wrong, and nothing is sent.
    @Test(arguments: [("café", "U+00E9 at character 3"), ("a\u{2028}b", "U+2028 at character 1"), ("tab\there", "U+0009 at character 3")])
    func aQuotedKeyAnSfStringCannotHoldIsRefused(key: String, what: String) async throws {
        let harness = MiddlewareHarness(IdempotencyKeyMiddleware(configuration: .init(quoted: true, makeKey: { key })), replies: [.status(.ok)])
        let error = await #expect(throws: SluiceError.self) {
            try await harness.send(HTTPRequest(method: .post, url: URL(string: "https://api.example.com/orders")!))
        }
        #expect(error?.code == .invalidHeader)
        #expect(
            error?.message
                == "the Idempotency-Key made for a quoted field has \(what): a structured-field string holds printable ASCII only "
                + "(RFC 8941 §3.3.3); make keys of it, or send them bare (quoted: false)")
        #expect(harness.transport.requests.isEmpty)
    }

    /// A hedged POST: with its key, hedging may send a copy, and both copies carry the one key.
    /// The server decides which copy wins, not the clock: the first to arrive is held until the
    /// test ends, so the copy answers first however slow the build (issue 53, item 13).
    @Test func hedgedCopiesOfACallCarryItsOneKey() async throws {
        let server = try MockWebServer()
        let held = TestGate()
        defer { held.open() }
        let arrivals = Locked(0)
        server.setHandler { _ in
            let arrival = arrivals.withLock { count -> Int in
                count += 1
                return count
            }
            return arrival == 1 ? MockWebServer.Response(status: 200, body: "slow").with(stallAfter: 0, until: held) : .init(status: 200, body: "fast")
        }
        let client = Self.client([HedgingMiddleware(configuration: .init(delay: .fixed(.milliseconds(50)), maxExtraRatio: 1))])
        var request = HTTPRequest(method: .post, url: server.url("/charges"))
        request.body = .bytes(Data("amount=100".utf8))
        #expect(try await client.send(request).text == "fast")
        try await Wait.until("both copies reached the server") { server.requests.count == 2 }
        let keys = server.requests.map { $0.header("Idempotency-Key") }
        #expect(keys[0] != nil && keys[0] == keys[1], "\(keys)")
    }
}
