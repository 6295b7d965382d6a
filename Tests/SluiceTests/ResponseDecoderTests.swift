import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite struct ResponseDecoderTests {
    struct Event: Decodable, Equatable {
        let eventName: String
        let startsAt: Date
    }

    @Test func jsonStrategiesAreConfigurable() throws {
        let response = HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json"],
            body: Data(#"{"event_name":"launch","starts_at":"2026-11-30T12:00:00Z"}"#.utf8))
        let decoder = JSONResponseDecoder<Event>(dateDecodingStrategy: .iso8601, keyDecodingStrategy: .convertFromSnakeCase)
        #expect(try decoder.decode(response) == Event(eventName: "launch", startsAt: Date(timeIntervalSince1970: 1_796_040_000)))
        #expect {
            try JSONResponseDecoder<Event>().decode(response)
        } throws: { error in
            (error as? SluiceError)?.message
                == #"cannot decode Event from the response body: key "eventName" not found at the top level; body: "{\"event_name\":\"launch\",\"starts_at\":\"2026-11-30T12:00:00Z\"}""#
        }
    }

    /// Issue 43, item 5: a decoder takes no policy of its own. A client's call is decoded under
    /// the client's policy, which its core stages put on the request every door sends.
    @Test func aClientsDecodingErrorHidesWhatTheClientsPolicyNames() async throws {
        struct Pinned: Decodable { let id: Int }
        let transport = MockTransport(replies: [.json(#"{"pin":"4711","id":"x"}"#), .json(#"{"pin":"4711","id":"x"}"#)])
        let client = Client(transport: transport, configuration: .init(redaction: Redaction.default.adding(parameters: ["pin"])))
        let expected =
            #"cannot decode Pinned from the response body: expected Int at .id: Expected to decode Int but found a string instead.; body: "{\"id\":\"x\",\"pin\":\"<redacted>\"}""#
        await #expect {
            _ = try await client.get("https://api.example.com/me", as: Pinned.self)
        } throws: { error in
            (error as? SluiceError)?.message == expected
        }
        let response = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/me")!))
        #expect {
            try JSONResponseDecoder<Pinned>().decode(response)
        } throws: { error in
            (error as? SluiceError)?.message == expected
        }
    }

    /// A decoder made with the default policy still hides what the request's own policy names
    /// when its error quotes the body.
    @Test func aDecodersErrorHidesWhatTheRequestsPolicyNames() throws {
        var request = HTTPRequest(url: URL(string: "https://api.example.com/me")!)
        request.redaction = request.redaction.adding(parameters: ["pin"])
        var response = HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: Data(#"{"pin":"4711","name":7}"#.utf8))
        response.request = request
        #expect {
            try JSONResponseDecoder<Event>().decode(response)
        } throws: { error in
            (error as? SluiceError)?.message
                == #"cannot decode Event from the response body: key "eventName" not found at the top level; body: "{\"name\":7,\"pin\":\"<redacted>\"}""#
        }
        // "é" is no US-ASCII text; the body quoted is still parsed as JSON.
        response.headers = ["Content-Type": "application/json; charset=us-ascii"]
        response.body = Data(#"{"pin":"4711","x":"é"}"#.utf8)
        #expect {
            try StringResponseDecoder().decode(response)
        } throws: { error in
            (error as? SluiceError)?.message == #"the response body is not valid us-ascii text; body: "{\"pin\":\"<redacted>\",\"x\":\"é\"}""#
        }
    }

    @Test func stringsFollowTheCharsetAndRefuseBadBytes() throws {
        func response(_ type: String?, _ bytes: [UInt8]) -> HTTPResponse {
            HTTPResponse(status: .ok, headers: type.map { ["Content-Type": $0] } ?? [:], body: Data(bytes))
        }
        let decoder = StringResponseDecoder()
        #expect(try decoder.decode(response("text/plain; charset=\"UTF-8\"", Array("naïve".utf8))) == "naïve")
        #expect(try decoder.decode(response("text/plain; charset=utf-16le", [0x68, 0x00, 0x69, 0x00])) == "hi")
        #expect(try decoder.decode(response(nil, Array("plain".utf8))) == "plain")
        #expect {
            try decoder.decode(response("text/plain; charset=utf-8", [0x61, 0xFF, 0x62]))
        } throws: { error in
            (error as? SluiceError)?.message == "the response body is not valid utf-8 text; body: \"a\u{FFFD}b\""
        }
        #expect {
            try decoder.decode(response("text/plain; charset=klingon", [0x61]))
        } throws: { error in
            (error as? SluiceError)?.code == .decodingFailed
                && (error as? SluiceError)?.message == #"the response's charset "klingon" is not one Sluice can decode"#
        }
    }

    @Test func dataComesFromMemoryOrTheBodyFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("on disk".utf8).write(to: file)
        var response = HTTPResponse(status: .ok)
        response.bodyFile = file
        #expect(try DataResponseDecoder().decode(response) == Data("on disk".utf8))
        try FileManager.default.removeItem(at: file)
        #expect {
            try DataResponseDecoder().decode(response)
        } throws: { error in
            (error as? SluiceError)?.code == .decodingFailed
                && (error as? SluiceError)?.message.hasPrefix("cannot read the response body file \(file.path): ") == true
        }
    }
}

extension Client {
    /// Whether ``validate(_:)`` passes `response`.
    func validate(response: HTTPResponse) -> Bool {
        (try? validate(response)) != nil
    }
}
