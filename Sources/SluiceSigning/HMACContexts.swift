import CCrypto
import Foundation
import Sluice

/// Keyed HMAC contexts, made once per digest and key and copied for each message: libcrypto's
/// one-shot `HMAC()` looks the algorithm up and hashes the key again on every call, which cost a
/// signed request more than the hashing of its message. A handful of keys are kept (a signer
/// rarely has more); past that the cache starts again.
enum HMACContexts {
    /// A context keyed once; copied under the cache's lock, never used directly.
    private final class Template: @unchecked Sendable {
        // @unchecked: `context` is only read (copied by EVP_MAC_CTX_dup) while the cache's lock is
        // held, and freed in deinit, when no copy can be in progress.
        let context: OpaquePointer

        init(context: OpaquePointer) { self.context = context }

        deinit { EVP_MAC_CTX_free(context) }
    }

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
    private static let templates = Locked<[Key: Template]>([:])

    /// HMAC-`digest` of `data` under `key`, or nil when libcrypto cannot allocate memory.
    static func mac(_ digest: Digest, key: Data, _ data: Data) -> Data? {
        guard let context = copy(digest, key: key) else { return nil }
        defer { EVP_MAC_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length = 0
        let updated = data.withUnsafeBytes { EVP_MAC_update(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        guard updated == 1, EVP_MAC_final(context, &output, &length, output.count) == 1 else { return nil }
        return Data(output[0..<length])
    }

    /// A fresh copy of the keyed context for `digest` and `key`.
    private static func copy(_ digest: Digest, key: Data) -> OpaquePointer? {
        let cacheKey = Key(digest: digest, key: key)
        return templates.withLock { templates -> OpaquePointer? in
            if let template = templates[cacheKey] { return EVP_MAC_CTX_dup(template.context) }
            guard let template = keyed(digest, key: key) else { return nil }
            if templates.count >= 16 { templates.removeAll() }
            templates[cacheKey] = template
            return EVP_MAC_CTX_dup(template.context)
        }
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
