import CCrypto
import Foundation
import Sluice

/// The SHA-256 of a file, read in 1 MiB pieces through libcrypto.
enum SHA256File {
    static func hex(of url: URL) throws(SluiceError) -> String {
        guard let context = EVP_MD_CTX_new() else { throw SluiceError(.other, "libcrypto could not make a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { throw SluiceError(.other, "libcrypto could not start SHA-256") }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SluiceError(.writeFailed, "cannot read \(url.path) to check its SHA-256: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw SluiceError(.writeFailed, "cannot read \(url.path) to check its SHA-256: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ EVP_DigestUpdate(context, $0.baseAddress, count) }) == 1 else {
                throw SluiceError(.other, "libcrypto failed while hashing \(url.path)")
            }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { throw SluiceError(.other, "libcrypto could not finish SHA-256") }
        return digest.withUnsafeBytes { Data.hex(UnsafeRawBufferPointer(rebasing: $0.prefix(Int(length)))) }
    }
}
