#if HTTPTypes
    import Foundation
    import HTTPTypes
    import Sluice
    import SluiceHTTPTypes
    import Testing

    @Suite struct HTTPResponseHTTPTypesTests {
        @Test func aResponseGoesToHTTPTypesAndBackWithItsReasonAndRepeatedFields() throws {
            var response = Sluice.HTTPResponse(status: HTTPStatus(code: 418, reasonPhrase: "Short and Stout"), body: Data("tea".utf8))
            try response.headers.append(name: "Set-Cookie", value: "a=1")
            try response.headers.append(name: "Set-Cookie", value: "b=2")

            let head = try HTTPTypes.HTTPResponse(response)
            #expect(head.status.code == 418)
            #expect(head.status.reasonPhrase == "Short and Stout")
            #expect(head.headerFields[values: .setCookie] == ["a=1", "b=2"])

            let back = try Sluice.HTTPResponse(head, body: response.body)
            #expect(back.status.code == 418)
            #expect(back.status.reasonPhrase == "Short and Stout")
            #expect(back.headers == response.headers)
            #expect(back.text == "tea")
        }

        @Test func aStatusOfFourDigitsIsAnInvalidResponse() {
            let error = #expect(throws: SluiceError.self) { try HTTPTypes.HTTPResponse(Sluice.HTTPResponse(status: HTTPStatus(code: 1000))) }
            #expect(error?.code == .invalidResponse)
            #expect(error?.message == "the status 1000 is outside 0...999, which HTTPTypes.HTTPResponse cannot hold")
        }
    }
#endif
