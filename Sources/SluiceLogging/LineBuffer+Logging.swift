/// The UTF-8 bytes of one log line or JSON record, appended piece by piece and made a `String`
/// once: the `.basic` line is written with one array and one string, not a string per number.
struct LineBuffer {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 192) {
        bytes.reserveCapacity(capacity)
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func append(contentsOf text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    mutating func append(contentsOf text: Substring) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// The decimal digits of `value`, with a minus sign when negative.
    mutating func append(integer value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        append(digitsOf: value.magnitude, minimumCount: 1)
    }

    /// `value` rounded to `places` decimals, trailing zeros dropped (`35`, `0.4`, `1.25`), without
    /// `String(format:)`, which costs microseconds on Linux. Not finite: `0`.
    mutating func append(_ value: Double, places: Int) {
        guard value.isFinite else { return append(UInt8(ascii: "0")) }
        var scale: UInt64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = UInt64((abs(value) * Double(scale)).rounded())
        if value < 0 && scaled != 0 { bytes.append(UInt8(ascii: "-")) }
        append(digitsOf: scaled / scale, minimumCount: 1)
        var fraction = scaled % scale
        guard fraction != 0 else { return }
        var digits = places
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        bytes.append(UInt8(ascii: "."))
        append(digitsOf: fraction, minimumCount: digits)
    }

    /// `17 B`, `1.2 KB`, `3.4 MB`.
    mutating func append(size: Int64) {
        switch size {
        case ..<1_024: append(integer: size); append(" B")
        case ..<(1 << 20): append(Double(size) / 1_024, places: 1); append(" KB")
        default: append(Double(size) / 1_048_576, places: 1); append(" MB")
        }
    }

    /// `0.4 ms` below 10 ms, whole milliseconds above.
    mutating func append(milliseconds: Double) {
        if milliseconds < 10 {
            append(milliseconds, places: 1)
        } else {
            append(integer: Int64(milliseconds.rounded()))
        }
        append(" ms")
    }

    /// What `write` appends, in the ANSI colour `code` (`"31"` is red) when `colours`.
    mutating func paint(_ code: StaticString, _ colours: Bool, _ write: (inout LineBuffer) -> Void) {
        guard colours else { return write(&self) }
        append("\u{1B}[")
        append(code)
        append(UInt8(ascii: "m"))
        write(&self)
        append("\u{1B}[0m")
    }

    /// `value` in decimal, zero-padded on the left to `minimumCount` digits.
    private mutating func append(digitsOf value: UInt64, minimumCount: Int) {
        var count = 1
        var rest = value / 10
        while rest > 0 { count += 1; rest /= 10 }
        count = max(count, minimumCount)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var remaining = value
        var index = start + count - 1
        while remaining > 0 {
            bytes[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            index -= 1
        }
    }
}
