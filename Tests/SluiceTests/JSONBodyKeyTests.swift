import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite("HTTPRequest.setJSONBody")
struct JSONBodyKeyTests {
    @Test func aJSONBodyOrAClearErrorWhenTheValueCannotBeEncoded() throws {
        struct Item: Encodable { let id: Int; let ratio: Double }
        var request = HTTPRequest(method: .post, url: URL(string: "https://a.example/items")!)
        try request.setJSONBody(Item(id: 7, ratio: 0.5))
        #expect(request.headers["Content-Type"] == "application/json")
        guard case .bytes(let body) = request.body else { Issue.record("not a bytes body"); return }
        #expect(String(decoding: body, as: UTF8.self).contains("\"id\":7"))
        #expect {
            try request.setJSONBody(Item(id: 1, ratio: .nan))
        } throws: { error in
            (error as? SluiceError)?.code == .invalidBody && (error as? SluiceError)?.message.hasPrefix("cannot encode Item as JSON: ") == true
        }
    }

    /// Not `Sendable`: a class with a mutable member.
    final class Draft: Encodable {
        var title = "draft"
    }

    @Test func aSendableValueIsKeptForTheClientAndAnotherIsNot() throws {
        var request = HTTPRequest(method: .post, url: URL(string: "https://a.example/items")!)
        try request.setJSONBody(["title": "kept"])
        #expect(request.options.contains(JSONBodyKey.self))
        try request.setJSONBody(Draft(), encoder: JSONEncoder())
        #expect(!request.options.contains(JSONBodyKey.self))
        guard case .bytes(let body) = request.body else { Issue.record("not a bytes body"); return }
        #expect(body == Data(#"{"title":"draft"}"#.utf8))
    }

    @Test func aValueTheClientsEncoderRefusesIsAnInvalidBodyAndNothingIsSent() async throws {
        struct Stamped: Encodable, Sendable { let at: Date }
        struct Refused: Error {}
        // The default encoder writes a date as a number; this client's encoder refuses dates.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { _, _ in throw Refused() }
        let transport = MockTransport.successful()
        let client = Client(transport: transport, configuration: .init(encoder: encoder))
        var request = HTTPRequest(method: .post, url: URL(string: "https://a.example/readings")!)
        try request.setJSONBody(Stamped(at: Date(timeIntervalSince1970: 0)))
        await #expect {
            _ = try await client.send(request)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody && error?.stage == .client
                && error?.message == "the JSON body could not be encoded: Refused()" && error?.underlying is Refused
        }
        #expect(transport.requests.isEmpty)
    }
}
