import Sluice

/// The per-request limit, in bytes, on a response body held in memory, behind
/// `HTTPRequest.maxResponseBodySize`; `nil` uses the transport's configuration.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
///
/// var request = HTTPRequest(url: url)
/// request.maxResponseBodySize = 1 << 20   // a larger body fails with .bodyTooLarge
/// ```
public enum MaxResponseBodySizeKey: RequestOptionKey {
    public static let defaultValue: Int? = nil
    public static let reader: OptionReader? = OptionReader(
        property: "request.maxResponseBodySize", middleware: "CurlTransport", module: "SluiceCurl")
}

extension HTTPRequest {
    /// Overrides the transport's in-memory response size limit for this request.
    public var maxResponseBodySize: Int? {
        get { options[MaxResponseBodySizeKey.self] }
        set { options[MaxResponseBodySizeKey.self] = newValue }
    }
}
