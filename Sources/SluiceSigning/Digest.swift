import CCrypto
import Foundation
import Sluice

/// Hashes and HMAC from OpenSSL's libcrypto: MD5 (for legacy servers), SHA-1, SHA-256, SHA-512.
///
/// ```swift
/// import Foundation
/// import SluiceSigning
///
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

    /// The algorithm, fetched from libcrypto's default provider once (a legacy `EVP_sha256()`
    /// is looked up again on every use).
    private var algorithm: OpaquePointer? {
        switch self {
        case .md5: Self.fetched.md5
        case .sha1: Self.fetched.sha1
        case .sha256: Self.fetched.sha256
        case .sha512: Self.fetched.sha512
        }
    }

    /// libcrypto's name of the algorithm.
    var openSSLName: String {
        switch self {
        case .md5: "MD5"
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        case .sha512: "SHA512"
        }
    }

    /// The fetched algorithms; kept for the life of the process.
    private struct Fetched: @unchecked Sendable {
        // @unchecked: EVP_MD objects are reference-counted, immutable once fetched, and safe to
        // use from any thread (libcrypto's documented threading rules for fetched algorithms).
        let md5 = EVP_MD_fetch(nil, Digest.md5.openSSLName, nil)
        let sha1 = EVP_MD_fetch(nil, Digest.sha1.openSSLName, nil)
        let sha256 = EVP_MD_fetch(nil, Digest.sha256.openSSLName, nil)
        let sha512 = EVP_MD_fetch(nil, Digest.sha512.openSSLName, nil)
    }

    private static let fetched = Fetched()

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
        guard let mac = HMACContexts.mac(self, key: key, data) else {
            throw SluiceError(.other, "libcrypto could not compute HMAC-\(rawValue) (out of memory?)")
        }
        return mac
    }
}

extension Digest {
    /// HMAC of `text`'s UTF-8 under `key`, written as lowercase hex or base64, with no copy of
    /// the text and no `Data` for the MAC: a signer's one call per request.
    ///
    /// - Throws: `.other` only when libcrypto cannot allocate memory.
    func hmac(key: Data, _ text: String, hex: Bool) throws(SluiceError) -> String {
        var text = text
        let written = text.withUTF8 { bytes in
            HMACContexts.mac(self, key: key, UnsafeRawBufferPointer(bytes)) { mac in
                hex ? Data.hex(mac) : Data(mac).base64EncodedString()
            }
        }
        guard let written else { throw SluiceError(.other, "libcrypto could not compute HMAC-\(rawValue) (out of memory?)") }
        return written
    }
}
