/// Typed per-request options: the caller's intent for each middleware, keyed by
/// ``RequestOptionKey`` types that each module declares.
///
/// ```swift
/// import Sluice
///
/// enum TraceTagKey: RequestOptionKey { static let defaultValue = "" }
///
/// var request = HTTPRequest(url: url)
/// request.options[TraceTagKey.self]            // "" (the default)
/// request.options[TraceTagKey.self] = "checkout"
/// request.options[TraceTagKey.self]            // "checkout"
/// ```
///
/// Empty options cost nothing: no storage is allocated until a value is set.
public struct RequestOptions: Sendable {
    /// A value with the key it was set under, so the pipeline can tell which options are set.
    @usableFromInline
    struct Stored: Sendable {
        @usableFromInline let value: any Sendable
        @usableFromInline let key: any RequestOptionKey.Type

        @usableFromInline
        init(value: any Sendable, key: any RequestOptionKey.Type) {
            self.value = value
            self.key = key
        }
    }

    @usableFromInline var storage: [ObjectIdentifier: Stored] = [:]

    /// No options set.
    public init() {}

    /// The value for `key`, or its `defaultValue` when it was never set.
    @inlinable
    public subscript<Key: RequestOptionKey>(key: Key.Type) -> Key.Value {
        get {
            if storage.isEmpty { return Key.defaultValue }  // the common case: no hashing, no cast
            return storage[ObjectIdentifier(key)].flatMap { $0.value as? Key.Value } ?? Key.defaultValue
        }
        set { storage[ObjectIdentifier(key)] = Stored(value: newValue, key: key) }
    }

    /// Whether `key` was set explicitly (even to its default value).
    public func contains<Key: RequestOptionKey>(_ key: Key.Type) -> Bool {
        storage[ObjectIdentifier(key)] != nil
    }

    /// Forgets `key`, so it reads as its default again.
    public mutating func remove<Key: RequestOptionKey>(_ key: Key.Type) {
        storage[ObjectIdentifier(key)] = nil
    }

    /// How many options are set.
    public var count: Int { storage.count }

    /// The keys of the options that are set.
    public var keys: [any RequestOptionKey.Type] { storage.values.map(\.key) }
}
