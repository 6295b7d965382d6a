import Foundation
import Sluice

/// Where the payload ciphers get their keys: the key new messages are encrypted with (and its
/// id, sent in the clear so the other side can pick its key), and any key by id, for what arrives.
/// Keys rotate by changing the current id while the old ones stay known until no message can
/// use them.
///
/// ```swift
/// import SluiceEncryption
///
/// let keys = StaticKeyProvider(keys: ["2026-12": newKey, "2026-11": oldKey], current: "2026-12")
/// let cipher = AES128GCMContentCoding(keys: keys)
/// ```
public protocol KeyProvider: Sendable {
    /// The id and key new messages are encrypted with.
    ///
    /// - Throws: `.misconfigured` when there is none.
    func currentKey() throws(SluiceError) -> (id: String, key: Data)

    /// The key with this id, or nil when it is unknown.
    func key(id: String) -> Data?
}
