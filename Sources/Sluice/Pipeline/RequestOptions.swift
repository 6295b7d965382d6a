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
/// Empty options cost nothing: no storage is allocated until a value is set. The few a request
/// carries are kept in the order they were set and found by their key's identity, without
/// hashing: a request with one option set looks each key up on every stage of the chain.
public struct RequestOptions: Sendable {
    /// A value with the key it was set under, so the pipeline can tell which options are set.
    @usableFromInline
    struct Stored: Sendable {
        @usableFromInline let id: ObjectIdentifier
        @usableFromInline let value: any Sendable
        @usableFromInline let key: any RequestOptionKey.Type

        @usableFromInline
        init(value: any Sendable, key: any RequestOptionKey.Type) {
            self.id = ObjectIdentifier(key)
            self.value = value
            self.key = key
        }
    }

    @usableFromInline var storage: [Stored] = []

    /// No options set.
    public init() {}

    /// The value for `key`, or its `defaultValue` when it was never set.
    @inlinable
    public subscript<Key: RequestOptionKey>(key: Key.Type) -> Key.Value {
        get {
            if storage.isEmpty { return Key.defaultValue }  // the common case: no search, no cast
            let id = ObjectIdentifier(key)
            // By index: each look reads one identifier in place, without copying the element.
            var index = 0
            while index < storage.count {
                if storage[index].id == id { return storage[index].value as? Key.Value ?? Key.defaultValue }
                index += 1
            }
            return Key.defaultValue
        }
        set {
            let id = ObjectIdentifier(key)
            if let index = storage.firstIndex(where: { $0.id == id }) {
                storage[index] = Stored(value: newValue, key: key)
            } else {
                storage.append(Stored(value: newValue, key: key))
            }
        }
    }

    /// Whether `key` was set explicitly (even to its default value).
    public func contains<Key: RequestOptionKey>(_ key: Key.Type) -> Bool {
        let id = ObjectIdentifier(key)
        return storage.contains { $0.id == id }
    }

    /// Forgets `key`, so it reads as its default again.
    public mutating func remove<Key: RequestOptionKey>(_ key: Key.Type) {
        let id = ObjectIdentifier(key)
        storage.removeAll { $0.id == id }
    }

    /// How many options are set.
    public var count: Int { storage.count }

    /// The keys of the options that are set, in the order they were first set.
    public var keys: [any RequestOptionKey.Type] { storage.map(\.key) }
}
