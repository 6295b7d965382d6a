import CCrypto
import Foundation
import Sluice

/// Keyed HMAC contexts, made once per digest and key and reused: libcrypto's one-shot `HMAC()`
/// looks the algorithm up and hashes the key again on every call, which cost a signed request
/// more than the hashing of its message. A message takes a spare context of its key (or a copy of
/// the keyed template), and gives it back reset to the bare key (`EVP_MAC_init` with no key
/// restores the keyed state without hashing the key again), so a steady signer allocates nothing
/// in libcrypto. A handful of keys are kept (a signer rarely has more); past that the cache
/// starts again.
enum HMACContexts {
    /// A context keyed once, and the spare contexts of the same key.
    private final class Template: @unchecked Sendable {
        // @unchecked: `context` is only read (copied by EVP_MAC_CTX_dup) and `spares` only read or
        // changed while the cache's lock is held; both are freed in deinit, when no copy can be in
        // progress and no spare is in use (a context in use is owned by its `mac` call alone).
        let context: OpaquePointer
        var spares: [OpaquePointer] = []

        init(context: OpaquePointer) { self.context = context }

        deinit {
            EVP_MAC_CTX_free(context)
            for spare in spares { EVP_MAC_CTX_free(spare) }
        }
    }

    /// The most spare contexts kept per key: as many as messages are signed at once, usually.
    private static let sparesPerKey = 8

    private struct Key: Hashable {
        let digest: Digest
        let key: Data
    }

    /// libcrypto's HMAC, fetched once.
    private struct Algorithm: @unchecked Sendable {
        // @unchecked: a fetched EVP_MAC is reference-counted, immutable and safe to use from any
        // thread (libcrypto's rules for fetched algorithms).
        let pointer = EVP_MAC_fetch(nil, "HMAC", nil)
    }

    private static let hmac = Algorithm()
    /// The keyed templates, and the one used last: a signer uses one key call after call, and
    /// comparing its bytes costs less than hashing them.
    private struct Cache {
        var byKey: [Key: Template] = [:]
        var last: (key: Key, template: Template)?
    }

    private static let templates = Locked(Cache())

    /// HMAC-`digest` of `data` under `key`, or nil when libcrypto cannot allocate memory.
    static func mac(_ digest: Digest, key: Data, _ data: Data) -> Data? {
        data.withUnsafeBytes { bytes in mac(digest, key: key, bytes) { Data($0) } }
    }

    /// `body` over HMAC-`digest` of `bytes` under `key` (the MAC lives only for the call), or nil
    /// when libcrypto cannot allocate memory: a signer writes it out as hex or base64 without a
    /// `Data` in between.
    static func mac<Result>(_ digest: Digest, key: Data, _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard let (template, context) = take(digest, key: key) else { return nil }
        defer { giveBack(context, to: template) }
        guard EVP_MAC_update(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 1 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { output -> Result? in
            var length = 0
            guard let base = output.baseAddress, EVP_MAC_final(context, base, &length, output.count) == 1 else { return nil }
            return body(UnsafeRawBufferPointer(start: base, count: length))
        }
    }

    /// A context keyed for `digest` and `key`, ready for a message: a spare, or a fresh copy.
    private static func take(_ digest: Digest, key: Data) -> (Template, OpaquePointer)? {
        let cacheKey = Key(digest: digest, key: key)
        return templates.withLock { cache -> (Template, OpaquePointer)? in
            let template: Template
            if let last = cache.last, last.key == cacheKey {
                template = last.template
            } else if let cached = cache.byKey[cacheKey] {
                template = cached
            } else {
                guard let made = keyed(digest, key: key) else { return nil }
                if cache.byKey.count >= 16 { cache.byKey.removeAll() }
                cache.byKey[cacheKey] = made
                template = made
            }
            cache.last = (cacheKey, template)
            if let spare = template.spares.popLast() { return (template, spare) }
            return EVP_MAC_CTX_dup(template.context).map { (template, $0) }
        }
    }

    /// Keeps `context` for the next message of its key once it is reset to the bare key, or frees
    /// it (when it cannot be reset, or enough are kept).
    private static func giveBack(_ context: OpaquePointer, to template: Template) {
        guard EVP_MAC_init(context, nil, 0, nil) == 1 else { return EVP_MAC_CTX_free(context) }
        let kept = templates.withLock { _ in
            guard template.spares.count < sparesPerKey else { return false }
            template.spares.append(context)
            return true
        }
        if !kept { EVP_MAC_CTX_free(context) }
    }

    private static func keyed(_ digest: Digest, key: Data) -> Template? {
        guard let algorithm = hmac.pointer, let context = EVP_MAC_CTX_new(algorithm) else { return nil }
        let name = digest.openSSLName
        let initialized = name.withCString { name in
            "digest".withCString { field in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(field, UnsafeMutablePointer(mutating: name), 0), OSSL_PARAM_construct_end(),
                ]
                return key.withUnsafeBytes { keyBytes in
                    // A zero-length key needs a non-null pointer.
                    let bytes = keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)
                    return EVP_MAC_init(context, bytes, keyBytes.count, &parameters)
                }
            }
        }
        guard initialized == 1 else {
            EVP_MAC_CTX_free(context)
            return nil
        }
        return Template(context: context)
    }
}
