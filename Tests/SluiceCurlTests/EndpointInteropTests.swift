import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// httpbin's `/anything` echo, as much of it as the test reads.
struct Echo: Decodable, Sendable {
    let method: String
    let args: [String: String]
    let json: Note?
    let headers: [String: String]
}

struct Note: Codable, Equatable, Sendable {
    let title: String
    let tags: [String]
}

/// A typed call against httpbin: query, JSON body, headers in; the echo decoded out.
struct EchoNote: Endpoint {
    typealias Response = Echo
    let body: Note?
    var method: HTTPMethod { .put }
    var path: String { "anything/notes" }
    var query: [URLQueryItem] { [URLQueryItem(name: "draft", value: "yes & no"), URLQueryItem(name: "lang", value: "fr-é")] }
    var headers: HTTPFields { ["X-Client": "sluice-tests"] }
}

@Suite("Typed endpoints against httpbin")
struct EndpointInteropTests {
    @Test func aTypedEndpointRoundTripsThroughHttpbin() async throws {
        let client = Client(transport: CurlTransport(), configuration: .init(baseURL: try InteropServers.httpbin()))
        let note = Note(title: "Ünïcode & \"quotes\"", tags: ["a", "b"])
        let echo = try await client.send(EchoNote(body: note))
        #expect(echo.method == "PUT")
        #expect(echo.args == ["draft": "yes & no", "lang": "fr-é"])
        #expect(echo.json == note)
        #expect(echo.headers["X-Client"] == "sluice-tests")
        #expect(echo.headers["Content-Type"] == "application/json")
    }

    @Test func httpbinsErrorStatusIsRefusedWithItsBody() async throws {
        struct Teapot: Endpoint {
            typealias Response = Echo
            var path: String { "status/418" }
        }
        let client = Client(transport: CurlTransport(), configuration: .init(baseURL: try InteropServers.httpbin()))
        do {
            _ = try await client.send(Teapot())
            Issue.record("decoded a 418")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableStatus)
            #expect(error.message.hasPrefix("GET \(try InteropServers.httpbin("/status/418").absoluteString) answered 418 "))
            #expect(error.message.contains("accepted: 200..<300; body: "))
        }
    }
}
