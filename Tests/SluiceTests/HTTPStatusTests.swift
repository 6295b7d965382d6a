import Foundation
import Sluice
import Testing

@Suite("HTTPStatus")
struct HTTPStatusTests {
    @Test func classesAndPhrases() {
        let notFound: HTTPStatus = 404
        #expect(notFound.reasonPhrase == "Not Found")
        #expect(notFound.description == "404 Not Found")
        #expect(notFound.isClientError && !notFound.isSuccess && !notFound.isServerError && !notFound.isRedirect)
        #expect(HTTPStatus.ok.isSuccess)
        #expect(HTTPStatus(code: 299).isSuccess)
        #expect(HTTPStatus.found.isRedirect)
        #expect(HTTPStatus.badGateway.isServerError)
        #expect(HTTPStatus.continue.isInformational)
        #expect(HTTPStatus(code: 599).reasonPhrase == "")
        #expect(HTTPStatus(code: 200, reasonPhrase: "Fine") == .ok)
        #expect(HTTPStatus(code: 200, reasonPhrase: "Fine").description == "200 Fine")
    }
}

enum TagKey: RequestOptionKey { static let defaultValue: [String] = [] }
enum LabelKey: RequestOptionKey { static let defaultValue = "none" }
enum OtherLabelKey: RequestOptionKey { static let defaultValue = "other" }

extension HTTPRequest {
    var testTags: [String] {
        get { options[TagKey.self] }
        set { options[TagKey.self] = newValue }
    }
}
