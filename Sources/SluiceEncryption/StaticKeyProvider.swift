import Foundation
import Sluice

/// A fixed set of keys by id, one of them current: for keys from a configuration file or a
/// keychain read at start.
///
/// ```swift
/// import SluiceEncryption
///
/// let keys = StaticKeyProvider(keys: ["k1": key], current: "k1")
/// try keys.currentKey().id   // "k1"
/// ```
public struct StaticKeyProvider: KeyProvider, CustomStringConvertible {
    private let keys: [String: Data]
    /// The id of the key new messages use.
    public let current: String

    /// Keys by id, and the id of the one to encrypt with.
    public init(keys: [String: Data], current: String) {
        self.keys = keys
        self.current = current
    }

    public func currentKey() throws(SluiceError) -> (id: String, key: Data) {
        guard let key = keys[current] else {
            throw SluiceError(.misconfigured, "the current key id \(String(reflecting: current)) has no key")
        }
        return (current, key)
    }

    public func key(id: String) -> Data? { keys[id] }

    /// The ids, never the keys.
    public var description: String { "StaticKeyProvider(ids: \(keys.keys.sorted()), current: \(current))" }
}
