import Foundation
import Sluice
import SluiceEncryption

extension FuzzTarget {
    /// RFC 8188 `aes128gcm` records read with a 64 KiB record limit, whole and in two pieces: a
    /// failure is `.invalidResponse`, the plaintext is never longer than what came, and it does
    /// not depend on how the message was cut. Also the input as content, sealed in records of a
    /// size its first bytes pick and read back, is the input.
    static let aes128gcm = FuzzTarget(name: "aes128gcm", summary: "RFC 8188 aes128gcm records") { data in
        // Made for each input: a global holding it reads as a leak to LeakSanitizer.
        let keys = StaticKeyProvider(keys: ["k": Data(repeating: 7, count: 16)], current: "k")
        func open(_ pieces: [Data]) -> Result<Data, SluiceError> {
            let decoder = AES128GCMRecords.Decoder(keys: keys, maxRecordSize: 64 << 10)
            return Result { () throws(SluiceError) -> Data in
                var plain = Data()
                for piece in pieces { plain += try decoder.add(piece) }
                return plain + (try decoder.finish())
            }
        }
        let cut = data.isEmpty ? 0 : Int(data[data.startIndex]) % (data.count + 1)
        switch (open([data]), open([data.prefix(cut), data.dropFirst(cut)])) {
        case (.success(let whole), .success(let halves)):
            require(whole == halves && whole.count <= data.count, "\(whole.count) bytes whole, \(halves.count) cut at \(cut)")
        case (.failure(let one), .failure(let two)):
            require(one.code == .invalidResponse || one.code == .bodyTooLarge, "opening failed with \(one.code): \(one)")
            require(two.code == one.code, "whole: \(one.code), cut: \(two.code)")
        default:
            require(false, "one way opened, the other did not (cut at \(cut))")
        }
        let recordSize = 18 + Int(data.prefix(2).reduce(0) { $0 << 8 | Int($1) }) % 4_096
        do throws(SluiceError) {
            let encoder = try AES128GCMRecords.Encoder(
                secret: Data(repeating: 7, count: 16), keyID: Data("k".utf8), recordSize: recordSize, salt: Data(repeating: 1, count: 16))
            let sealed = try encoder.add(data) + encoder.finish()
            require((try? open([sealed]).get()) == data, "a round trip in records of \(recordSize) changed \(data.count) bytes")
        } catch {
            require(false, "sealing \(data.count) bytes in records of \(recordSize) failed: \(error)")
        }
    }

    /// A JWE in compact serialization: refused with `.invalidResponse` (or `.bodyTooLarge`), never
    /// a trap, whatever its five parts hold.
    static let jweCompact = FuzzTarget(name: "jwe-compact", summary: "JWE compact serialization (dir, A256GCM)") { data in
        let cipher = JWECompactCipher(keys: StaticKeyProvider(keys: ["k": Data(repeating: 9, count: 32)], current: "k"), maximumBodySize: 1 << 20)
        do throws(SluiceError) {
            let (plain, _) = try cipher.decrypt(compact: data)
            require(plain.count <= data.count, "\(plain.count) bytes of plaintext from \(data.count)")
        } catch {
            require(error.code == .invalidResponse || error.code == .bodyTooLarge, "decrypting failed with \(error.code): \(error)")
        }
    }
}
