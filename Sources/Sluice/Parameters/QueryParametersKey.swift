import Foundation

/// The per-request option behind ``HTTPRequest/queryParameters``.
///
/// ```swift
/// import Foundation
/// import Sluice
///
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
}
