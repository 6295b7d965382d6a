import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite struct ValidationTests {
    @Test func anUnacceptableStatusShowsTheRedactedBody() async throws {
        let transport = MockTransport(replies: [.json(#"{"error":"expired","token":"abc123"}"#, status: .unauthorized)])
        do {
            _ = try await client(transport).send(Greeting())
            Issue.record("accepted a 401")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableStatus)
            #expect(
                error.message
                    == #"GET https://api.example.com/v1/greeting answered 401 Unauthorized; accepted: 200..<300; body: "{\"error\":\"expired\",\"token\":\"<redacted>\"}""#
            )
            #expect(error.response?.status == .unauthorized)
        }
    }

    @Test func anUnacceptableContentTypeIsNamedWithTheAcceptedList() async throws {
        let transport = MockTransport(replies: [.status(.ok, headers: ["Content-Type": "text/csv"], body: "a,b\n1,2")])
        do {
            _ = try await client(transport).send(Greeting())
            Issue.record("accepted text/csv")
        } catch let error as SluiceError {
            #expect(error.code == .unacceptableContentType)
            #expect(
                error.message
                    == #"GET https://api.example.com/v1/greeting answered 200 OK with Content-Type "text/csv"; accepted: application/json, text/json, text/javascript, text/html, text/plain, text/xml, image/*; body: "a,b\n1,2""#
            )
        }
    }

    @Test func aBodyWithNoContentTypeIsRefusedButAnEmptyOneIsNot() async throws {
        let transport = MockTransport(replies: [.status(.ok, body: "hello"), .status(.ok)])
        let c = client(transport)
        do {
            _ = try await c.send(Greeting())
            Issue.record("accepted an untyped body")
        } catch let error as SluiceError {
            #expect(
                error.message
                    == #"GET https://api.example.com/v1/greeting answered 200 OK with no Content-Type; accepted: application/json, text/json, text/javascript, text/html, text/plain, text/xml, image/*; body: "hello""#
            )
        }
        #expect(try await c.send(Greeting()) == "")
    }

    @Test(arguments: [
        ("image/png", true), ("IMAGE/JPEG; q=1", true), ("application/json; charset=utf-8", true), ("text/csv", false),
        ("application/xml", false), ("video/mp4", false),
    ])
    func mediaTypesMatchExactlyOrByWildcard(contentType: String, accepted: Bool) {
        let response = HTTPResponse(status: .ok, headers: ["Content-Type": contentType], body: Data("x".utf8))
        #expect(Client(transport: MockTransport(replies: [])).validate(response: response) == accepted)
    }

    @Test func typesCanBeAddedOrTheCheckTurnedOff() async throws {
        let transport = MockTransport(replies: [
            .status(.ok, headers: ["Content-Type": "application/xml"], body: "<a/>"),
            .status(.ok, headers: ["Content-Type": "text/csv"], body: "a"),
        ])
        let c = client(transport) { $0.acceptableContentTypes?.append("application/xml") }
        #expect(try await c.send(Greeting()) == "<a/>")
        #expect(try await client(transport) { $0.acceptableContentTypes = nil }.send(Greeting()) == "a")
    }
}
