import Foundation
import Sluice

/// XML responses as an ``XMLTree``.
///
/// ```swift
/// import Sluice
/// import SluiceXML
///
/// let feed = try await client.send(request, decoder: XMLResponseDecoder())
/// let titles = feed["channel"]?.children(named: "item").compactMap { $0["title"]?.text }
/// ```
///
/// With an `Endpoint`, return it from `decode(_:with:)`:
///
/// ```swift
/// import Sluice
/// import SluiceXML
///
/// struct Feed: Endpoint {
///     typealias Response = XMLTree
///     var path: String { "feed.xml" }
///     func decode(_ response: HTTPResponse, with client: Client) throws(SluiceError) -> XMLTree {
///         try XMLResponseDecoder().decode(response)
///     }
/// }
/// ```
///
/// The client's default media types accept `application/xml`, `text/xml` and every `+xml` type
/// (`application/atom+xml`, `application/rss+xml`).
public struct XMLResponseDecoder: ResponseDecoder {
    /// A decoder whose errors quote the body under the privacy policy of the request it answered
    /// (the client's, for a client's call).
    public init() {}

    /// - Throws: `.decodingFailed` naming where the XML goes wrong, with the start of the body.
    public func decode(_ response: HTTPResponse) throws(SluiceError) -> XMLTree {
        let data = try DataResponseDecoder().decode(response)
        do {
            return try XMLTree(parsing: data)
        } catch {
            var error = error
            error.message += "; body: " + Redaction.default.snippet(of: data, in: response)
            error.stage = .client
            error.response = response
            throw error
        }
    }
}
