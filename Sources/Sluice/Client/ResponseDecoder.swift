/// Turns a response into a value: JSON into a `Decodable` type, the body as `Data`, as a `String`
/// in the charset the server named, or (in `SluiceXML`) as an element tree.
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// let snakeCase = JSONDecoder()
/// snakeCase.keyDecodingStrategy = .convertFromSnakeCase
/// let user = try await client.send(request, decoder: JSONResponseDecoder<User>(decoder: snakeCase))
/// let page = try await client.send(request, decoder: StringResponseDecoder())
/// ```
///
/// Write your own for another format; throw `SluiceError` `.decodingFailed` with the start of
/// the body (``Redaction/snippet(of:contentType:)``) when the body is not what you expect.
public protocol ResponseDecoder<Output>: Sendable {
    /// What the decoder makes of a response: a `Decodable` type, `Data`, a `String`, a tree.
    associatedtype Output

    /// The value in `response`.
    ///
    /// - Throws: `.decodingFailed` that says what was wrong and shows the start of the body.
    func decode(_ response: HTTPResponse) throws(SluiceError) -> Output
}
