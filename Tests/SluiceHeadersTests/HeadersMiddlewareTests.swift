import Foundation
import Sluice
import SluiceCurl
import SluiceHeaders
import SluiceTestSupport
import SluiceTesting
import Testing

final class Counter: Sendable {
    private let value = Locked(0)
    func next() -> Int {
        value.withLock {
            $0 += 1; return $0
        }
    }
    var count: Int { value.withLock { $0 } }
}

@Suite("HeadersMiddleware")
struct HeadersMiddlewareTests {
    let url = URL(string: "https://api.example.com/x")!

    @Test func fixedAndProvidedFieldsAreAddedAndTheRequestsOwnWin() async throws {
        let calls = Counter()
        let middleware = HeadersMiddleware(
            configuration: .init(
                fields: ["Accept": "application/json", "X-App": "shop/4.2"],
                providers: [{ ["X-Call": String(calls.next()), "X-App": "from-provider"] }]
            ))
        let harness = MiddlewareHarness(middleware, replies: [.status(.ok), .status(.ok)])
        _ = try await harness.send(HTTPRequest(url: url, headers: ["Accept": "text/plain"]))
        _ = try await harness.send(HTTPRequest(url: url))
        let first = harness.forwarded[0].headers, second = harness.forwarded[1].headers
        #expect(first["Accept"] == "text/plain")
        #expect(first["X-App"] == "from-provider" && first["X-Call"] == "1")
        #expect(second["Accept"] == "application/json" && second["X-Call"] == "2")
    }

    @Test func overridingReplacesTheRequestsFields() async throws {
        let harness = MiddlewareHarness(HeadersMiddleware(configuration: .init(fields: ["Accept": "a/b"], overridesRequest: true)), replies: [.status(.ok)])
        _ = try await harness.send(HTTPRequest(url: url, headers: ["accept": "c/d"]))
        #expect(harness.forwarded[0].headers.values(for: "Accept") == ["a/b"])
    }

    @Test func aFailingProviderFailsTheRequestWithItsError() async throws {
        struct Locked: Error {}
        let harness = MiddlewareHarness(HeadersMiddleware(configuration: .init(providers: [{ throw Locked() }])), replies: [.status(.ok)])
        await #expect { _ = try await harness.send(HTTPRequest(url: url)) } throws: { ($0 as? SluiceError)?.underlying is Locked }
        #expect(harness.forwarded.isEmpty)
    }

    @Test func aProvidedFieldWithALineBreakIsAnInvalidHeader() async throws {
        let harness = MiddlewareHarness(
            HeadersMiddleware(
                configuration: .init(providers: [
                    {
                        var fields = HTTPFields()
                        try fields.append(name: "X-Bad", value: "a\r\nInjected: 1")
                        return fields
                    }
                ])), replies: [.status(.ok)])
        await #expect { _ = try await harness.send(HTTPRequest(url: url)) } throws: { ($0 as? SluiceError)?.code == .invalidHeader }
    }

    @Test func httpbinSeesTheInjectedFieldsAndTheDefaultUserAgent() async throws {
        let pipeline = Pipeline(
            middlewares: [HeadersMiddleware(configuration: .init(fields: ["X-Sluice-Test": "yes"], providers: [{ ["X-Provided": "42"] }]))],
            transport: CurlTransport()
        )
        let response = try await pipeline.send(HTTPRequest(url: try InteropServers.httpbin("/headers")))
        let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]])
        let headers = try #require(json["headers"])
        #expect(headers["X-Sluice-Test"] == "yes" && headers["X-Provided"] == "42")
        #expect(headers["User-Agent"] == CurlTransport.defaultUserAgent)
        #expect(CurlTransport.defaultUserAgent == "Sluice/\(SluiceVersion.current) libcurl/\(CurlTransport.curlVersion)")
    }

    @Test func aFieldTheConfigurationsLiteralLeftOutIsAnErrorNotAGap() async throws {
        let message = #"value of header "X-Key" has LF (0x0A) at byte 1; CR, LF and NUL are never allowed in header fields"#
        let fixed = MiddlewareHarness(HeadersMiddleware(configuration: .init(fields: ["X-Key": "k\n"])), replies: [.status(.ok)])
        let provided = MiddlewareHarness(HeadersMiddleware(configuration: .init(providers: [{ ["X-Key": "k\n"] }])), replies: [.status(.ok)])
        for harness in [fixed, provided] {
            let error = await #expect(throws: SluiceError.self) { _ = try await harness.send(HTTPRequest(url: url)) }
            #expect(error?.code == .invalidHeader && error?.message == message)
            #expect(harness.forwarded.isEmpty)
        }
    }
}
