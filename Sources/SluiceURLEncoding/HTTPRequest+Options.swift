import Sluice

// URLEncodingMiddleware's per-request option: the key next to its property.

/// The per-request option behind `HTTPRequest.formParameters`, read by
/// ``URLEncodingMiddleware``.
package enum FormParametersKey: RequestOptionKey {
    package static let defaultValue = ParameterValue.dictionary([])
    package static let reader: OptionReader? = OptionReader(
        property: "request.formParameters", middleware: "URLEncodingMiddleware", module: "SluiceURLEncoding")
}

extension HTTPRequest {
    /// Parameters ``URLEncodingMiddleware`` sends as an `application/x-www-form-urlencoded` body.
    public var formParameters: ParameterValue {
        get { options[FormParametersKey.self] }
        set { options[FormParametersKey.self] = newValue }
    }
}
