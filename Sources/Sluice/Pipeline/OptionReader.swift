/// Who reads a request option: what the `.misconfigured` error names when a request sets the
/// option and nothing in its chain reads it.
///
/// ```swift
/// import Sluice
///
/// enum AudienceKey: RequestOptionKey {
///     static let defaultValue = "customer"
///     static let reader: OptionReader? = OptionReader(
///         property: "request.audience", middleware: "AudienceMiddleware", module: "AppNetworking")
/// }
/// ```
public struct OptionReader: Sendable, Hashable {
    /// How a caller sets the option (`request.cachePolicy`).
    public let property: String
    /// The middleware or transport type that reads it (`CacheMiddleware`).
    public let middleware: String
    /// The module that type comes from (`SluiceCache`).
    public let module: String

    /// Who reads an option, for the error naming it.
    public init(property: String, middleware: String, module: String) {
        self.property = property
        self.middleware = middleware
        self.module = module
    }
}
