import CCrypto
import Foundation
import Sluice

/// Hashes and HMAC from OpenSSL's libcrypto: MD5 (for legacy servers), SHA-1, SHA-256, SHA-512.
///
/// ```swift
/// try Digest.sha256.hash(Data("abc".utf8))                      // 32 bytes: ba7816bf…
/// try Digest.sha256.hmac(key: Data("key".utf8), Data("message".utf8)).base64EncodedString()
/// ```
public enum Digest: String, Sendable, Hashable {
    /// MD5 (only for APIs that demand it).
    case md5
    /// SHA-1.
    case sha1
    /// SHA-256.
    case sha256
    /// SHA-512.
    case sha512

    private var algorithm: OpaquePointer? {
        switch self {
        case .md5: EVP_md5()
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha512: EVP_sha512()
        }
    }

    /// The digest of `data`.
    ///
    /// - Throws: `.other` only when libcrypto cannot allocate memory.
    public func hash(_ data: Data) throws(SluiceError) -> Data {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &output, &length, algorithm, nil) }
        guard ok == 1 else { throw SluiceError(.other, "libcrypto could not compute \(rawValue) (out of memory?)") }
        return Data(output[0..<Int(length)])
    }

    /// HMAC of `data` under `key`.
    ///
    /// - Throws: `.other` only when libcrypto cannot allocate memory.
    public func hmac(key: Data, _ data: Data) throws(SluiceError) -> Data {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                HMAC(
                    algorithm, keyBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(keyBytes.count),
                    dataBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), dataBytes.count, &output, &length)
            }
        }
        guard result != nil else { throw SluiceError(.other, "libcrypto could not compute HMAC-\(rawValue) (out of memory?)") }
        return Data(output[0..<Int(length)])
    }
}

extension Data {
    /// Lowercase hexadecimal.
    var hex: String {
        withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { text in
                for (index, byte) in bytes.enumerated() {
                    text[2 * index] = Self.hexDigit(byte >> 4)
                    text[2 * index + 1] = Self.hexDigit(byte & 0x0F)
                }
                return bytes.count * 2
            }
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
