import CCrypto
import Foundation
import Sluice

/// SHA-256 from libcrypto, as lowercase hex (for cache keys of POST bodies).
enum SHA256 {
    /// The digest of `data` as 64 hex digits; nil if libcrypto fails (only when out of memory).
    static func hex(_ data: Data) -> String? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
        }
        guard ok == 1, length == 32 else { return nil }
        return digest.withUnsafeBytes { Data.hex(UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
    }
}
