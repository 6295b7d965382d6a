import Foundation

extension Data {
    /// The bytes a hex string spells, two digits a byte: for test vectors copied from RFCs and
    /// reference implementations.
    ///
    /// ```swift
    /// let gzipHello = Data(hex: "1f8b0800000000000203cb48cdc9c9e7020020303a3606000000")
    /// ```
    package init(hex text: String) {
        precondition(text.count.isMultiple(of: 2), "an odd number of hex digits: \(text)")
        var data = Data(capacity: text.count / 2)
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { preconditionFailure("not hex: \(text[index..<next])") }
            data.append(byte)
            index = next
        }
        self = data
    }
}
