import Foundation
import Sluice
import SluiceCache
import SluiceTesting
import Testing

@Suite("Client.cacheThenNetwork")
struct CacheThenNetworkTests {
    let url = URL(string: "https://api.example.com/feed")!

    func collect(_ client: Client) async throws -> [(ResponseSource, String?)] {
        var seen: [(ResponseSource, String?)] = []
        for try await response in client.cacheThenNetwork(HTTPRequest(url: url)) { seen.append((response.source, response.text)) }
        return seen
    }

    @Test func nothingStoredYieldsOnlyTheNetwork() async throws {
        let transport = MockTransport(replies: [.status(.ok, headers: ["Cache-Control": "max-age=60"], body: "fresh")])
        let client = Client(transport: transport, middlewares: [CacheMiddleware(store: MemoryCacheStore())])
        let seen = try await collect(client)
        #expect(seen.map(\.0) == [.network] && seen.map(\.1) == ["fresh"])
    }

    @Test func aStoredCopyComesFirstThenTheFreshOne() async throws {
        let transport = MockTransport(replies: [
            .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "v1"),
            .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "v2"),
        ])
        let store = MemoryCacheStore()
        let client = Client(transport: transport, middlewares: [CacheMiddleware(store: store)])
        _ = try await client.send(HTTPRequest(url: url))
        let seen = try await collect(client)
        #expect(seen.map(\.0) == [.cache, .network])
        #expect(seen.map(\.1) == ["v1", "v2"])
        // The fresh response was stored.
        #expect(try await client.send(HTTPRequest(url: url)).text == "v2")
    }

    @Test func aNetworkFailureEndsTheStreamAfterTheCachedCopy() async throws {
        let transport = MockTransport(replies: [
            .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "v1"),
            .error(SluiceError(.cannotConnect, "refused")),
        ])
        let client = Client(transport: transport, middlewares: [CacheMiddleware(store: MemoryCacheStore())])
        _ = try await client.send(HTTPRequest(url: url))
        var seen: [String?] = []
        await #expect {
            for try await response in client.cacheThenNetwork(HTTPRequest(url: url)) { seen.append(response.text) }
        } throws: { ($0 as? SluiceError)?.code == .cannotConnect }
        #expect(seen == ["v1"])
    }

    @Test func withoutACacheItIsMisconfiguredAndNothingIsSent() async throws {
        let transport = MockTransport(replies: [.status(.ok, body: "only")])
        let client = Client(transport: transport)
        await #expect {
            _ = try await collect(client)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .misconfigured
                && error?.message
                    == "request.cachePolicy is set on GET https://api.example.com/feed, but nothing in this chain reads it: add CacheMiddleware (from SluiceCache) to the client"
        }
        #expect(transport.requests.isEmpty)
    }
}
