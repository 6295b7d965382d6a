/// A typed key for a per-request option in ``HTTPRequest/options``.
///
/// The core knows no options. A module declares its key, and a property in an extension of
/// ``HTTPRequest`` so callers write `request.audience = .staff` (as SluiceCache's
/// `request.cachePolicy` and SluiceHUD's `request.hudTip` do):
///
/// ```swift
/// import Sluice
///
/// public enum Audience: Sendable { case customer, staff }
///
/// enum AudienceKey: RequestOptionKey {
///     static let defaultValue = Audience.customer
/// }
///
/// extension HTTPRequest {
///     public var audience: Audience {
///         get { options[AudienceKey.self] }
///         set { options[AudienceKey.self] = newValue }
///     }
/// }
/// ```
///
/// Keys are told apart by their type, so two modules can never collide on a string name.
///
/// A key that only a middleware acts on names it in ``reader``, and the middleware lists the key
/// in ``Middleware/readsOptions``: a request that sets the option on a chain without that
/// middleware then fails with `.misconfigured` before anything is sent, instead of the option
/// being ignored without a word.
public protocol RequestOptionKey: Sendable {
    /// The option's type.
    associatedtype Value: Sendable
    /// The value of an option that was never set.
    static var defaultValue: Value { get }
    /// Who reads the option; `nil` (the default) for one that needs no reader.
    static var reader: OptionReader? { get }
}

extension RequestOptionKey {
    public static var reader: OptionReader? { nil }
}
