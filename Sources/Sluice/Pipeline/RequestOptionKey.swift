/// A typed key for a per-request option in ``HTTPRequest/options``.
///
/// The core knows no options. A module declares its key, and a property in an extension of
/// ``HTTPRequest`` so callers write `request.cachePolicy = .reload`:
///
/// ```swift
/// public enum CachePolicyKey: RequestOptionKey {
///     public static let defaultValue: CachePolicy = .useProtocolCachePolicy
/// }
///
/// extension HTTPRequest {
///     public var cachePolicy: CachePolicy {
///         get { options[CachePolicyKey.self] }
///         set { options[CachePolicyKey.self] = newValue }
///     }
/// }
/// ```
///
/// Keys are told apart by their type, so two modules can never collide on a string name.
public protocol RequestOptionKey: Sendable {
    /// The option's type.
    associatedtype Value: Sendable
    /// The value of an option that was never set.
    static var defaultValue: Value { get }
}
