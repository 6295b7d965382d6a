import Foundation

/// JSON into a `Decodable` type, with the date and key strategies of your API.
///
/// ```swift
/// import FoundationEssentials
/// import Sluice
///
/// let decoder = JSONResponseDecoder<[Order]>(dateDecodingStrategy: .iso8601, keyDecodingStrategy: .convertFromSnakeCase)
/// let orders = try await client.send(request, decoder: decoder)
/// ```
///
/// A failure names the type, says where decoding stopped (`key "name" not found at .user`), and
/// shows the start of the body with secrets hidden.
public struct JSONResponseDecoder<Output: Decodable>: ResponseDecoder {
    /// The decoder the body is read with.
    public let decoder: JSONDecoder

    /// Decodes with `decoder`. Error messages quote the body under the privacy policy of the
    /// request it answered (the client's, for a client's call), so a decoder takes none of its own.
    public init(decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

    /// A decoder with these strategies.
    public init(
        dateDecodingStrategy: JSONDecoder.DateDecodingStrategy,
        keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys
    ) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = dateDecodingStrategy
        decoder.keyDecodingStrategy = keyDecodingStrategy
        self.init(decoder: decoder)
    }

    /// - Throws: `.decodingFailed` whose message names `Output`, says where decoding stopped, and
    ///   shows the start of the body; the `DecodingError` is its ``SluiceError/underlying``.
    public func decode(_ response: HTTPResponse) throws(SluiceError) -> Output {
        let data = try DataResponseDecoder().decode(response)
        do {
            return try decoder.decode(Output.self, from: data)
        } catch {
            throw SluiceError(
                .decodingFailed,
                "cannot decode \(Output.self) from the response body: \(Self.explain(error)); body: "
                    + Redaction.default.snippet(of: data, in: response),
                underlying: error, stage: .client, response: response
            )
        }
    }

    static func explain(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "at the top level" : "at \(keys)"
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "key \(String(reflecting: key.stringValue)) not found \(path(context))"
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type) \(path(context)): \(context.debugDescription)"
        case DecodingError.valueNotFound(let type, let context):
            return "expected \(type) but found null \(path(context))"
        case DecodingError.dataCorrupted(let context):
            let cause = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "not valid JSON \(path(context)): \(cause ?? context.debugDescription)"
        default:
            return String(describing: error)
        }
    }
}
