/// One request's say over what a middleware otherwise does by its configuration: whether
/// `GzipMiddleware` compresses its body, `PayloadEncryptionMiddleware` encrypts it, a HUD shows.
/// ``asConfigured`` unless set; `true` and `false` may be written for ``always`` and ``never``.
///
/// ```swift
/// import Sluice
/// import SluiceGzip
///
/// var upload = HTTPRequest(method: .post, url: url, body: .bytes(bigJSON))
/// upload.compressesBody = .always   // whatever GzipMiddleware's configuration says
/// ```
public enum RequestOverride: Sendable, Hashable, ExpressibleByBooleanLiteral {
    /// As the middleware's configuration says (the default).
    case asConfigured
    /// For this request, whatever the configuration says.
    case always
    /// Not for this request, whatever the configuration says.
    case never

    /// ``always`` for `true`, ``never`` for `false`.
    public init(booleanLiteral value: Bool) {
        self = value ? .always : .never
    }

    /// Whether the middleware acts, given what its configuration says.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// RequestOverride.asConfigured.applies(configured: true)   // true
    /// RequestOverride.never.applies(configured: true)          // false
    /// ```
    public func applies(configured: Bool) -> Bool {
        switch self {
        case .asConfigured: configured
        case .always: true
        case .never: false
        }
    }
}
