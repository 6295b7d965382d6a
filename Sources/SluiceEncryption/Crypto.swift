import CCrypto
import Foundation
import Sluice

/// libcrypto's AES-GCM, HKDF and random bytes, as the ciphers of this module use them. Nothing
/// here computes a cipher or a hash itself.
enum Crypto {
    /// A fetched libcrypto algorithm.
    private struct Fetched: @unchecked Sendable {
        // @unchecked: fetched EVP_CIPHER and EVP_KDF objects are reference-counted, immutable and
        // safe to use from any thread (libcrypto's rules for fetched algorithms).
        let pointer: OpaquePointer?
    }

    private static let aes128GCM = Fetched(pointer: EVP_CIPHER_fetch(nil, "AES-128-GCM", nil))
    private static let aes256GCM = Fetched(pointer: EVP_CIPHER_fetch(nil, "AES-256-GCM", nil))
    private static let hkdfAlgorithm = Fetched(pointer: EVP_KDF_fetch(nil, "HKDF", nil))

    /// The length of a GCM tag, in bytes.
    static let tagLength = 16

    /// A literal as the C string libcrypto's parameters name: a static string lives for the whole
    /// run and ends with a NUL.
    private static func cString(_ text: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// HKDF-SHA-256 (RFC 5869, extract then expand) of `ikm` with `salt` and `info`.
    static func hkdf(ikm: Data, salt: Data, info: Data, length: Int) throws(SluiceError) -> Data {
        guard let algorithm = hkdfAlgorithm.pointer, let context = EVP_KDF_CTX_new(algorithm) else {
            throw SluiceError(.other, "libcrypto has no HKDF")
        }
        defer { EVP_KDF_CTX_free(context) }
        var output = Data(count: length)
        let derived = ikm.withUnsafeBytes { ikm in
            salt.withUnsafeBytes { salt in
                info.withUnsafeBytes { info in
                    var parameters = [
                        OSSL_PARAM_construct_utf8_string(cString("digest"), UnsafeMutablePointer(mutating: cString("SHA256")), 0),
                        OSSL_PARAM_construct_octet_string(cString("key"), UnsafeMutableRawPointer(mutating: ikm.baseAddress), ikm.count),
                        OSSL_PARAM_construct_octet_string(cString("salt"), UnsafeMutableRawPointer(mutating: salt.baseAddress), salt.count),
                        OSSL_PARAM_construct_octet_string(cString("info"), UnsafeMutableRawPointer(mutating: info.baseAddress), info.count),
                        OSSL_PARAM_construct_end(),
                    ]
                    return output.withUnsafeMutableBytes { out in
                        EVP_KDF_derive(context, out.bindMemory(to: UInt8.self).baseAddress, length, &parameters)
                    }
                }
            }
        }
        guard derived == 1 else { throw SluiceError(.other, "libcrypto could not derive a key with HKDF") }
        return output
    }

    /// `count` bytes from libcrypto's random generator.
    static func randomBytes(_ count: Int) throws(SluiceError) -> Data {
        var bytes = Data(count: count)
        let filled = bytes.withUnsafeMutableBytes { RAND_bytes($0.bindMemory(to: UInt8.self).baseAddress, Int32(count)) }
        guard filled == 1 else { throw SluiceError(.other, "libcrypto's random generator failed") }
        return bytes
    }

    /// AES-GCM under one key (16 bytes: AES-128, 32: AES-256), message after message: the
    /// context is keyed once and each message sets only its nonce.
    final class GCM {
        private let context: OpaquePointer
        private let encrypting: Bool

        /// A context for `key`, to encrypt or to decrypt.
        init(key: Data, encrypting: Bool) throws(SluiceError) {
            guard let cipher = (key.count == 16 ? aes128GCM : key.count == 32 ? aes256GCM : Fetched(pointer: nil)).pointer else {
                throw SluiceError(.misconfigured, "an AES-GCM key has 16 or 32 bytes, not \(key.count)")
            }
            guard let context = EVP_CIPHER_CTX_new() else { throw SluiceError(.other, "libcrypto could not allocate a cipher context") }
            self.context = context
            self.encrypting = encrypting
            let keyed = key.withUnsafeBytes { key in
                let bytes = key.bindMemory(to: UInt8.self).baseAddress
                return encrypting
                    ? EVP_EncryptInit_ex2(context, cipher, bytes, nil, nil) : EVP_DecryptInit_ex2(context, cipher, bytes, nil, nil)
            }
            guard keyed == 1 else {
                EVP_CIPHER_CTX_free(context)
                throw SluiceError(.other, "libcrypto could not set up AES-GCM")
            }
        }

        deinit { EVP_CIPHER_CTX_free(context) }

        /// `plaintext` encrypted under `nonce` (12 bytes) with `aad` authenticated: the
        /// ciphertext, then the 16-byte tag, appended to `output`.
        func seal(_ plaintext: UnsafeRawBufferPointer, nonce: [UInt8], aad: Data = Data(), into output: inout Data) throws(SluiceError) {
            precondition(encrypting)
            let start = output.count
            output.count += plaintext.count + tagLength
            let sealed = output.withUnsafeMutableBytes { out -> Bool in
                let base = out.bindMemory(to: UInt8.self).baseAddress! + start
                var length: Int32 = 0, final: Int32 = 0
                guard EVP_EncryptInit_ex2(context, nil, nil, nonce, nil) == 1 else { return false }
                if !aad.isEmpty {
                    let added = aad.withUnsafeBytes { EVP_EncryptUpdate(context, nil, &length, $0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count)) }
                    guard added == 1 else { return false }
                }
                // libcrypto takes at most 2^31 − 1 bytes a call (an RFC 8188 record may hold up to
                // 2^32 − 18): fed in pieces of 1 GiB, GCM writes as much as it reads.
                let input = plaintext.bindMemory(to: UInt8.self).baseAddress
                var read = 0, written = 0
                repeat {
                    let piece = min(plaintext.count - read, 1 << 30)
                    guard EVP_EncryptUpdate(context, base + written, &length, input.map { $0 + read }, Int32(piece)) == 1 else { return false }
                    read += piece
                    written += Int(length)
                } while read < plaintext.count
                guard EVP_EncryptFinal_ex(context, base + written, &final) == 1,
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), base + plaintext.count) == 1
                else { return false }
                return true
            }
            guard sealed else { throw SluiceError(.other, "libcrypto could not encrypt with AES-GCM") }
        }

        /// The plaintext of `sealed` (ciphertext then tag), or nil when the tag does not match:
        /// the wrong key, or bytes that were changed.
        func open(_ sealed: UnsafeRawBufferPointer, nonce: [UInt8], aad: Data = Data()) -> Data? {
            precondition(!encrypting)
            guard sealed.count >= tagLength else { return nil }
            let textLength = sealed.count - tagLength
            // One byte at least, so an empty message still has somewhere to point.
            var plaintext = Data(count: max(textLength, 1))
            let opened = plaintext.withUnsafeMutableBytes { out -> Bool in
                let base = out.bindMemory(to: UInt8.self).baseAddress!
                let input = sealed.bindMemory(to: UInt8.self).baseAddress!
                var length: Int32 = 0, final: Int32 = 0
                var tag = Array(UnsafeBufferPointer(start: input + textLength, count: tagLength))
                guard EVP_DecryptInit_ex2(context, nil, nil, nonce, nil) == 1 else { return false }
                if !aad.isEmpty {
                    let added = aad.withUnsafeBytes { EVP_DecryptUpdate(context, nil, &length, $0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count)) }
                    guard added == 1 else { return false }
                }
                guard EVP_DecryptUpdate(context, base, &length, input, Int32(textLength)) == 1,
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
                else { return false }
                return EVP_DecryptFinal_ex(context, base + Int(length), &final) == 1
            }
            plaintext.count = textLength
            return opened ? plaintext : nil
        }
    }
}
