import Sluice

/// The per-request switch behind `HTTPRequest.compressesBody`, read by
/// ``GzipMiddleware``.
///
/// ```swift
/// import Sluice
/// import SluiceGzip
///
/// var request = HTTPRequest(method: .post, url: url, body: .bytes(bigJSON))
/// request.compressesBody = true   // sent with Content-Encoding: gzip
/// ```
public enum CompressesBodyKey: RequestOptionKey {
    public static let defaultValue: Bool? = nil
    public static let reader: OptionReader? = OptionReader(property: "request.compressesBody", middleware: "GzipMiddleware", module: "SluiceGzip")
}

extension HTTPRequest {
    /// Whether ``GzipMiddleware`` compresses this request's in-memory body: `true` whatever its
    /// size, `false` never, `nil` (the default) as its configuration says (by default: no).
    public var compressesBody: Bool? {
        get { options[CompressesBodyKey.self] }
        set { options[CompressesBodyKey.self] = newValue }
    }
}
