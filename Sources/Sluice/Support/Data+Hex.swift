import Foundation

extension Data {
    /// Lowercase hexadecimal, two digits a byte: the one hex encoder of Sluice's digests (cache
    /// keys of POST bodies, signatures, download checksums). `package`: for Sluice's own targets.
    package var hex: String { withUnsafeBytes { Self.hex($0) } }

    /// `bytes` in lowercase hexadecimal, written straight into the string's storage.
    package static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for index in 0..<bytes.count {
                text[2 * index] = hexDigit(bytes[index] >> 4)
                text[2 * index + 1] = hexDigit(bytes[index] & 0x0F)
            }
            return bytes.count * 2
        }
    }

    /// `0`–`9`, `a`–`f` for a value below 16 (a percent-encoding's uppercase digits are
    /// `PercentEncoding.hexDigit`'s).
    package static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
