import Foundation
import Sluice
import SluiceTesting
import Testing

/// Issue 53, item 1: the core's framing step (``HTTPRequest/withFramingFromBody()``), run by every
/// door; the wire cases are in `CurlTransportFramingTests`.
@Suite("A caller's framing fields")
struct HTTPRequestFramingTests {
    let url = URL(string: "https://api.example.com/items")!

    func request(_ body: HTTPBody, _ fields: HTTPFields, method: HTTPMethod = .post) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: url)
        request.body = body
        request.headers = fields
        return request
    }

    func message(_ request: HTTPRequest) -> String? {
        do {
            _ = try request.withFramingFromBody()
            return nil
        } catch {
            #expect(error.code == .invalidHeader)
            return error.message
        }
    }

    @Test func fieldsThatAgreeAreRemovedAndTheRestKept() throws {
        let framed = try request(.bytes(Data("hello".utf8)), ["Content-Length": "5", "transfer-encoding": "chunked", "X-A": "1"])
            .withFramingFromBody()
        #expect(framed.headers.map(\.name) == ["X-A"])
        // Several fields and a list that all say the same are one length.
        #expect(try request(.bytes(Data("hello".utf8)), ["Content-Length": "5, 5"]).withFramingFromBody().headers.isEmpty)
        // A bodiless request's "Content-Length: 0", and a HEAD's (which never sends a body).
        #expect(try request(.empty, ["Content-Length": "0"], method: .get).withFramingFromBody().headers.isEmpty)
        #expect(try request(.bytes(Data("x".utf8)), ["Content-Length": "0"], method: .head).withFramingFromBody().headers.isEmpty)
    }

    @Test func fieldsThatCannotFrameTheBodyAreRefusedWithWhatWasWrong() {
        let body = HTTPBody.bytes(Data("hello".utf8))
        #expect(
            message(request(body, ["Content-Length": "4"]))
                == "POST https://api.example.com/items carries Content-Length: 4, and its body is 5 bytes: Sluice writes Content-Length from the body as sent (leave the field out)"
        )
        #expect(
            message(request(body, ["Content-Length": "5, 6"]))
                == "POST https://api.example.com/items carries Content-Length fields that disagree (5 and 6): leave them out")
        for value in ["-5", "0x5", "5 5", "", "99999999999999999999", "+5"] {
            var fields = HTTPFields()
            try? fields.append(name: "Content-Length", value: value)
            let shown = String(reflecting: value.split(separator: ",").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "")
            #expect(
                message(request(body, fields))
                    == "POST https://api.example.com/items carries Content-Length \(shown), which is not a length of 0 to 9223372036854775807 bytes (leave the field out: Sluice writes it from the body)",
                "\(value)")
        }
        #expect(
            message(request(body, ["Transfer-Encoding": "chunked, gzip"]))
                == #"POST https://api.example.com/items carries Transfer-Encoding "gzip": Sluice applies no transfer coding to a request body and frames it itself (a compressed body is a Content-Encoding: GzipMiddleware)"#
        )
        let withTrailers = HTTPBody.Stream.oneShot(length: nil, AsyncThrowingStream { $0.finish() }).withTrailers { [:] }
        #expect(
            message(request(.stream(withTrailers), ["Content-Length": "0"]))
                == "POST https://api.example.com/items carries Content-Length: 0, and its body has trailers, which are sent after a chunked body (leave Content-Length out)"
        )
    }

    @Test func aStreamOfUnknownLengthTakesTheDeclaredOne() throws {
        let stream = HTTPBody.Stream.replayable(length: nil) { AsyncThrowingStream { $0.finish() } }
        let framed = try request(.stream(stream), ["Content-Length": "42"]).withFramingFromBody()
        #expect(framed.body.length == 42)
        #expect(framed.body.isReplayable)
        #expect(framed.headers.isEmpty)
        // A stream that knows its length is held to it like any body.
        let known = HTTPBody.Stream.replayable(length: 7) { AsyncThrowingStream { $0.finish() } }
        #expect(
            message(request(.stream(known), ["Content-Length": "42"]))?.hasSuffix(
                "its body is 7 bytes: Sluice writes Content-Length from the body as sent (leave the field out)") == true)
    }

    /// Every door runs the step: what a middleware and the transport see carries no caller framing.
    @Test func everyDoorRemovesTheCallersFramingBeforeTheFirstMiddleware() async throws {
        let transport = MockTransport(replies: [.status(.ok), .status(.ok)])
        let body = HTTPBody.bytes(Data("hello".utf8))
        _ = try await Pipeline(middlewares: [], transport: transport).send(request(body, ["Content-Length": "5"]))
        _ = try await Client(transport: transport).send(request(body, ["Content-Length": "5"]))
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { !$0.request.headers.contains("Content-Length") })
        await #expect(throws: SluiceError.self) {
            _ = try await Client(transport: transport).send(request(body, ["Content-Length": "6"]))
        }
        #expect(transport.requests.count == 2)
    }
}
