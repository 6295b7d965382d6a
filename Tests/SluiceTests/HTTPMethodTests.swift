import Foundation
import Sluice
import Testing

@Suite("HTTPMethod")
struct HTTPMethodTests {
    @Test func standardMethods() {
        #expect(
            [HTTPMethod.get, .head, .post, .put, .patch, .delete, .options, .trace].map(\.rawValue)
                == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
        #expect(HTTPMethod(rawValue: "GET") == .get)
    }

    @Test(arguments: ["PROPFIND", "M-SEARCH", "get", "X!#$%&'*+-.^_`|~9"])
    func acceptsAnyToken(raw: String) {
        #expect(HTTPMethod(rawValue: raw)?.rawValue == raw)
    }

    @Test(arguments: ["", "GET /", "GET\r\n", "G\u{0}", "GÉT", "A(B)", "A:B", "A\tB", "A\"B"])
    func refusesNonTokens(raw: String) {
        #expect(HTTPMethod(rawValue: raw) == nil)
    }

    @Test func tokenMasksAgreeWithTheTokenRule() {
        // Every byte: the header-name check (masks) and the method check (rule) accept the same ones.
        for byte in UInt8(0)...255 {
            var fields = HTTPFields()
            let name = String(decoding: [0x41, byte], as: UTF8.self)
            let acceptedAsName = (try? fields.append(name: name, value: "v")) != nil
            let acceptedAsMethod = HTTPMethod(rawValue: name) != nil
            #expect(acceptedAsName == acceptedAsMethod, "byte \(byte)")
        }
    }

    @Test func idempotencyAndSafety() {
        #expect([HTTPMethod.get, .head, .options, .trace, .put, .delete].allSatisfy { $0.isIdempotent })
        #expect(!HTTPMethod.post.isIdempotent && !HTTPMethod.patch.isIdempotent)
        #expect(HTTPMethod.get.isSafe && !HTTPMethod.put.isSafe)
    }
}
