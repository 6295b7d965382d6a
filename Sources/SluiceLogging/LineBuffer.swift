/// The UTF-8 bytes of one log line or JSON record, appended piece by piece into one growing
/// allocation and made a `String` once: no string per number, no array bookkeeping per piece.
///
/// Non-copyable, so the allocation has exactly one owner and is freed once, in `deinit`. Every
/// write goes through ``reserve(_:)`` first, which keeps `count + n <= capacity`.
struct LineBuffer: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    /// The bytes so far, as a string (they are UTF-8 from strings and ASCII, so nothing is repaired).
    var string: String { String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }

    mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func append(contentsOf text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    mutating func append(contentsOf text: Substring) {
        var text = text
        text.withUTF8 { append($0) }
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        if bytes.count <= 16 {
            // Most pieces are a few bytes: a loop costs less than a call to memcpy.
            for offset in 0..<bytes.count { start[count + offset] = base[offset] }
        } else {
            (start + count).update(from: base, count: bytes.count)
        }
        count += bytes.count
    }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    /// The decimal digits of `value`, with a minus sign when negative.
    mutating func append(integer value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        append(digitsOf: value.magnitude, minimumCount: 1)
    }

    /// `value` rounded to `places` decimals, trailing zeros dropped (`35`, `0.4`, `1.25`), without
    /// `String(format:)`, which costs microseconds on Linux. Not finite: `0`.
    mutating func append(_ value: Double, places: Int) {
        guard value.isFinite else { return append(UInt8(ascii: "0")) }
        var scale: UInt64 = 1
        for _ in 0..<places { scale *= 10 }
        let product = (abs(value) * Double(scale)).rounded()
        let scaled = product < 1.8e19 ? UInt64(product) : .max  // a finite value past UInt64 is held to it
        if value < 0 && scaled != 0 { append(UInt8(ascii: "-")) }
        append(fixed: scaled, scale: scale, places: places)
    }

    /// `17 B`, `1.2 KB`, `3.4 MB`: tenths rounded half up, in integers.
    mutating func append(size: Int64) {
        switch size {
        case ..<1_024:
            append(integer: size)
            append(" B")
        case ..<(1 << 20):
            append(fixed: UInt64((size * 10 + 512) >> 10), scale: 10, places: 1)
            append(" KB")
        default:
            let tenths = size.multipliedReportingOverflow(by: 10)
            let rounded = tenths.overflow ? UInt64(size >> 20) * 10 : UInt64((tenths.partialValue + (1 << 19)) >> 20)
            append(fixed: rounded, scale: 10, places: 1)
            append(" MB")
        }
    }

    /// `0.4 ms` below 10 ms, whole milliseconds above.
    mutating func append(milliseconds: Double) {
        if !milliseconds.isFinite || milliseconds < 0 {
            append(UInt8(ascii: "0"))
        } else if milliseconds < 10 {
            append(fixed: UInt64((milliseconds * 10).rounded()), scale: 10, places: 1)
        } else {
            append(digitsOf: UInt64(min(milliseconds.rounded(), 1e18)), minimumCount: 1)
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

    /// `scaled / scale` with up to `places` decimals (`scale` is 10^places), trailing zeros dropped.
    private mutating func append(fixed scaled: UInt64, scale: UInt64, places: Int) {
        append(digitsOf: scaled / scale, minimumCount: 1)
        var fraction = scaled % scale
        guard fraction != 0 else { return }
        var digits = places
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        append(UInt8(ascii: "."))
        append(digitsOf: fraction, minimumCount: digits)
    }

    /// `value` in decimal, zero-padded on the left to `minimumCount` digits (at most 20).
    private mutating func append(digitsOf value: UInt64, minimumCount: Int) {
        var length = 1
        var rest = value / 10
        while rest > 0 { length += 1; rest /= 10 }
        length = max(length, min(minimumCount, 20))
        reserve(length)
        var remaining = value
        for index in stride(from: count + length - 1, through: count, by: -1) {
            start[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
        }
        count += length
    }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toHold: extra) }
    }

    /// Doubles the allocation (or more, to fit `extra` bytes).
    @inline(never)
    private mutating func grow(toHold extra: Int) {
        let newCapacity = max(capacity * 2, count + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.moveInitialize(from: start, count: count)
        start.deallocate()
        start = grown
        capacity = newCapacity
    }
}
