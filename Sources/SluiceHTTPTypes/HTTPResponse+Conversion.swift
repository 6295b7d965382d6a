#if HTTPTypes
    import Foundation
    import HTTPTypes
    import Sluice

    extension HTTPTypes.HTTPResponse {
        /// The head of a Sluice response as swift-http-types says it: the status code and reason
        /// phrase, and the fields in order, repeated names kept. The body, the trailers and what
        /// Sluice knows of the transfer (metrics, source, attempts) have no place in it.
        ///
        /// ```swift
        /// import HTTPTypes
        /// import Sluice
        /// import SluiceHTTPTypes
        ///
        /// let response = Sluice.HTTPResponse(status: .notFound, headers: ["Content-Type": "text/plain"])
        /// let head = try HTTPTypes.HTTPResponse(response)
        /// head.status.code   // 404
        /// ```
        ///
        /// - Throws: `SluiceError` `.invalidResponse` for a status outside 0...999 (HTTPTypes holds
        ///   three digits); `.invalidHeader` for a field HTTPTypes refuses.
        public init(_ response: Sluice.HTTPResponse) throws(SluiceError) {
            let status = response.status
            guard (0...999).contains(status.code) else {
                throw SluiceError(.invalidResponse, "the status \(status.code) is outside 0...999, which HTTPTypes.HTTPResponse cannot hold")
            }
            self.init(status: Status(code: status.code, reasonPhrase: status.reasonPhrase), headerFields: try HTTPTypes.HTTPFields(response.headers))
        }
    }

    extension Sluice.HTTPResponse {
        /// A Sluice response from a swift-http-types response head and a body.
        ///
        /// ```swift
        /// import Foundation
        /// import HTTPTypes
        /// import Sluice
        /// import SluiceHTTPTypes
        ///
        /// let head = HTTPTypes.HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"])
        /// let response = try Sluice.HTTPResponse(head, body: Data("{}".utf8))
        /// response.headers["Content-Type"]   // "application/json"
        /// ```
        ///
        /// - Throws: `SluiceError` `.invalidHeader` for a field Sluice refuses (a control character
        ///   in a value).
        public init(_ head: HTTPTypes.HTTPResponse, body: Data = Data()) throws(SluiceError) {
            let reason = head.status.reasonPhrase
            self.init(
                status: HTTPStatus(code: head.status.code, reasonPhrase: reason.isEmpty ? nil : reason),
                headers: try Sluice.HTTPFields(head.headerFields), body: body)
        }
    }
#endif
