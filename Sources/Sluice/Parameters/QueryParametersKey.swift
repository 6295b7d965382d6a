import Foundation

/// The per-request option behind ``HTTPRequest/queryParameters``.
///
/// ```swift
/// var request = HTTPRequest(url: URL(string: "https://api.example.com/search")!)
/// request.queryParameters = ["q": "café", "page": 2]   // sent as ?q=caf%C3%A9&page=2
/// ```
public enum QueryParametersKey: RequestOptionKey {
    public static let defaultValue = ParameterValue.dictionary([])
}

extension HTTPRequest {
    /// Parameters added to the URL's query, in order: `["q": "café", "page": 2]`. A
    /// `URLEncodingMiddleware` in the chain encodes them with its own settings (array style,
    /// sorting); without one, ``Pipeline`` encodes them with ``ParameterEncoder/default`` before
    /// the first middleware runs.
    public var queryParameters: ParameterValue {
        get { options[QueryParametersKey.self] }
        set { options[QueryParametersKey.self] = newValue }
    }

    /// Sets the body to `value` as JSON, with `Content-Type: application/json`. A ``Client``'s
    /// typed calls use its configured encoder; pass that one (`client.configuration.encoder`) to
    /// encode a request the same way.
    ///
    /// - Throws: `.invalidBody` naming the value that could not be encoded.
    public mutating func setJSONBody<T: Encodable>(_ value: T, encoder: JSONEncoder = JSONEncoder()) throws(SluiceError) {
        do {
            body = .bytes(try encoder.encode(value))
        } catch {
            throw SluiceError(.invalidBody, "\(T.self) could not be encoded as JSON: \(error)", underlying: error)
        }
        try headers.set(name: "Content-Type", value: "application/json")
    }
}
