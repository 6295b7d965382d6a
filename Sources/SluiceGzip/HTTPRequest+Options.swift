import Sluice

// GzipMiddleware's per-request option: the key next to its property.

/// The per-request switch behind `HTTPRequest.compressesBody`, read by
/// ``GzipMiddleware``.
package enum CompressesBodyKey: RequestOptionKey {
    package static let defaultValue = RequestOverride.asConfigured
    package static let reader: OptionReader? = OptionReader(property: "request.compressesBody", middleware: "GzipMiddleware", module: "SluiceGzip")
}

extension HTTPRequest {
    /// Whether ``GzipMiddleware`` compresses this request's in-memory body: `.always` whatever its
    /// size, `.never`, or `.asConfigured` (the default: by default, no).
    public var compressesBody: RequestOverride {
        get { options[CompressesBodyKey.self] }
        set { options[CompressesBodyKey.self] = newValue }
    }
}
