import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceHeaders
import SluiceSigning
import SluiceTesting
import Testing

/// Issue 27, item 1: a cache never serves one identity's answer to another, when the credentials
/// are added below it (by a signer, a token at `.network`, curl itself) and when a URL names its
/// host in a form curl rewrites.
@Suite("CacheMiddleware keeps identities apart", .timeLimit(.minutes(2)))
struct CacheSharedIdentityTests {
    /// Answers `account of <who>`, where who is the SigV4 access key ID or the bearer token the
    /// request carried, with `fields`.
    static func accountServer(_ fields: [(String, String)], delay: Duration = .zero) throws -> MockWebServer {
        let server = try MockWebServer()
        server.setHandler { request in
            let authorization = request.header("Authorization") ?? "nobody"
            var who = authorization
            if let credential = authorization.range(of: "Credential=") {
                who = String(authorization[credential.upperBound...].prefix { $0 != "/" })
            } else if authorization.hasPrefix("Bearer ") {
                who = String(authorization.dropFirst(7))
            }
            return .init(status: 200, headers: fields, body: "account of \(who)").with(headersDelay: delay)
        }
        return server
    }

    static func signer(_ accessKeyID: String) -> SigningMiddleware {
        SigningMiddleware(
            signer: AWSSigV4Signer(
                accessKeyID: accessKeyID, secretAccessKey: "secret-\(accessKeyID)", sessionToken: nil, region: "eu-west-1", service: "execute-api"))
    }

    static func client(_ store: any CacheStore, shared: Bool, _ stages: [any Middleware]) -> Client {
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(CacheMiddleware(store: store, configuration: .init(isShared: shared)))
        for stage in stages { builder.add(stage) }
        return builder.build()
    }

    @Test func twoSigV4ClientsOverOneSharedStoreEachGetTheirOwnAccount() async throws {
        let server = try Self.accountServer([("Cache-Control", "max-age=60")])
        let store = MemoryCacheStore()
        let alice = Self.client(store, shared: true, [Self.signer("AKIDALICE")])
        let bob = Self.client(store, shared: true, [Self.signer("AKIDBOB")])
        #expect(try await alice.send(HTTPRequest(url: server.url("/account"))).text == "account of AKIDALICE")
        let bobs = try await bob.send(HTTPRequest(url: server.url("/account")))
        #expect(bobs.text == "account of AKIDBOB")
        #expect(bobs.source == .network)
        // A signed request's answer without public, s-maxage or must-revalidate is not stored.
        #expect(try await store.entryCount() == 0)
        #expect(server.requests.count == 2)
    }

    @Test func aPublicAnswerToASignedRequestIsSharedAsTheResponseAllows() async throws {
        let server = try Self.accountServer([("Cache-Control", "public, max-age=60")])
        let store = MemoryCacheStore()
        let alice = Self.client(store, shared: true, [Self.signer("AKIDALICE")])
        let bob = Self.client(store, shared: true, [Self.signer("AKIDBOB")])
        _ = try await alice.send(HTTPRequest(url: server.url("/catalogue")))
        let bobs = try await bob.send(HTTPRequest(url: server.url("/catalogue")))
        #expect(bobs.source == .cache)
        #expect(bobs.text == "account of AKIDALICE")  // the server said it was public
        #expect(server.requests.count == 1)
    }

    @Test func twoSignersBehindVaryAuthorizationEachGetTheirOwnAndTheirOwnAgainFromTheStore() async throws {
        let server = try Self.accountServer([("Cache-Control", "public, max-age=60"), ("Vary", "Authorization")])
        let store = MemoryCacheStore()
        for shared in [true, false] {
            try await store.clear()
            let alice = Self.client(store, shared: shared, [Self.signer("AKIDALICE")])
            let bob = Self.client(store, shared: shared, [Self.signer("AKIDBOB")])
            let before = server.requests.count
            #expect(try await alice.send(HTTPRequest(url: server.url("/me"))).text == "account of AKIDALICE")
            let bobs = try await bob.send(HTTPRequest(url: server.url("/me")))
            #expect(bobs.text == "account of AKIDBOB", "shared: \(shared)")
            #expect(bobs.source == .network)
            // Each signature differs (its date), yet the same identity is served its own copy.
            let bobsAgain = try await bob.send(HTTPRequest(url: server.url("/me")))
            #expect(bobsAgain.text == "account of AKIDBOB")
            #expect(bobsAgain.source == .cache)
            #expect(server.requests.count - before == 2)
        }
    }

    @Test func aTokenAddedBelowTheCacheCountsAsTheRequestsCredentials() async throws {
        let server = try Self.accountServer([("Cache-Control", "max-age=60")])
        let store = MemoryCacheStore()
        func client(_ token: String) -> Client {
            var builder = Client.Builder(transport: CurlTransport())
            builder.add(CacheMiddleware(store: store, configuration: .init(isShared: true)))
            builder.add(AuthTokenMiddleware(configuration: .init(token: { token }, refresh: { token })), at: .network)
            return builder.build()
        }
        #expect(try await client("tok-alice").send(HTTPRequest(url: server.url("/me"))).text == "account of tok-alice")
        #expect(try await client("tok-bob").send(HTTPRequest(url: server.url("/me"))).text == "account of tok-bob")
        #expect(try await store.entryCount() == 0)
    }

    @TaskLocal static var caller = "nobody"

    /// One client whose token below the cache depends on the caller: identical concurrent GETs
    /// share one fetch only when they are the same identity's.
    @Test func concurrentCallsOfTwoIdentitiesNeverShareOneFetch() async throws {
        let server = try Self.accountServer([("Cache-Control", "public, max-age=60"), ("Vary", "Authorization")], delay: .milliseconds(200))
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(CacheMiddleware(store: MemoryCacheStore()))
        builder.add(AuthTokenMiddleware(configuration: .init(token: { "tok-" + Self.caller }, refresh: { "tok-" + Self.caller })), at: .network)
        let client = builder.build()
        let url = server.url("/me")
        async let a = Self.$caller.withValue("alice") { try await client.send(HTTPRequest(url: url)) }
        async let b = Self.$caller.withValue("bob") { try await client.send(HTTPRequest(url: url)) }
        let (alices, bobs) = try await (a, b)
        #expect(alices.text == "account of tok-alice")
        #expect(bobs.text == "account of tok-bob")
        #expect(server.requests.count == 2)
    }

    /// Before: the jar's cookies were matched against the URL as written, so `http://127.1/` and
    /// `http://2130706433/` looked cookie-less while curl sent 127.0.0.1's cookie, and the private
    /// page was stored as one for no cookie, then served to the next caller without one.
    @Test func varyCookieHoldsForNumericHostsAndDotSegments() async throws {
        let server = try MockWebServer()
        server.setHandler { request in
            if request.target == "/login" {
                return .init(status: 200, headers: [("Set-Cookie", "session=alice; Path=/")], body: "hello")
            }
            return .init(
                status: 200, headers: [("Cache-Control", "max-age=3600"), ("Vary", "Cookie")],
                body: "page for \(request.header("Cookie").map { $0.replacingOccurrences(of: "session=", with: "") } ?? "nobody")")
        }
        let store = MemoryCacheStore()
        func client(jar: Bool) -> Client {
            var configuration = CurlTransport.Configuration()
            configuration.cookieJar = jar ? .memory : nil
            var builder = Client.Builder(transport: CurlTransport(configuration: configuration))
            builder.add(CacheMiddleware(store: store))
            return builder.build()
        }
        let alice = client(jar: true)
        let bob = client(jar: false)
        _ = try await alice.send(HTTPRequest(url: server.url("/login")))
        let port = server.port
        for form in ["http://127.1:\(port)/account/me", "http://2130706433:\(port)/account/me", "http://127.0.0.1:\(port)/static/../account/me"] {
            let url = try #require(URL(string: form))
            #expect(try await alice.send(HTTPRequest(url: url)).text == "page for alice", "\(form)")
            let bobs = try await bob.send(HTTPRequest(url: url))
            #expect(bobs.text == "page for nobody", "Bob, at \(form)")
            #expect(bobs.source == .network)
        }
    }
}
