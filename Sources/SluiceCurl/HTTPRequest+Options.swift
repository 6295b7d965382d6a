import Sluice

// CurlTransport's per-request option: the key next to its property.

/// The per-request limit, in bytes, on a response body held in memory, behind
/// `HTTPRequest.maxResponseBodySize`; `nil` uses the transport's configuration.
package enum MaxResponseBodySizeKey: RequestOptionKey {
    package static let defaultValue: Int? = nil
    package static let reader: OptionReader? = OptionReader(
        property: "request.maxResponseBodySize", middleware: "CurlTransport", module: "SluiceCurl")
}

extension HTTPRequest {
    /// Overrides the transport's in-memory response size limit for this request.
    public var maxResponseBodySize: Int? {
        get { options[MaxResponseBodySizeKey.self] }
        set { options[MaxResponseBodySizeKey.self] = newValue }
    }
}
