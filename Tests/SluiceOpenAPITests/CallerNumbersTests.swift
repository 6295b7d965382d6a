#if OpenAPI
    import Foundation
    import HTTPTypes
    import OpenAPIRuntime
    import Sluice
    import SluiceCurl
    import SluiceOpenAPI
    import SluiceTestSupport
    import SluiceTesting
    import Testing

    /// SluiceOpenAPI's public numbers driven with every hostile value of ``CallerNumbers``: a
    /// limit of 0 or less takes no byte, any other takes a body within it, and nothing traps.
    @Suite("Caller numbers: SluiceOpenAPI")
    struct OpenAPICallerNumbersTests {
        @Test(.covers("OpenAPITransport.withResponseBodyLimit(_:_:isolation:) bytes"), arguments: CallerNumbers.ints.map { $0 as Int? } + [nil])
        func responseBodyLimit(_ limit: Int?) async throws {
            let server = try MockWebServer()
            server.setHandler { _ in .init(status: 200, headers: [("Content-Type", "text/plain")], body: "body") }
            let transport = OpenAPITransport(client: Sluice.Client(transport: CurlTransport()))
            let head = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x")
            let outcome = await Result {
                let body = try await OpenAPITransport.withResponseBodyLimit(limit) {
                    try await transport.send(head, body: nil, baseURL: server.url(""), operationID: "x").1
                }
                return try await Data(collecting: try #require(body), upTo: .max)
            }
            if (limit ?? .max) >= 4 {
                #expect(try outcome.get() == Data("body".utf8))
            } else {
                #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge }
            }
        }
    }
#endif
