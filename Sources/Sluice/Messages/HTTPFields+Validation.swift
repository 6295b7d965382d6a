/// The rules every field is checked by (RFC 9110 §5.5 and §5.6.2), whether it is added from
/// Strings or parsed from the wire.
extension HTTPFields {
    @inline(__always)
    static func matches(_ field: Field, _ name: String) -> Bool {
        namesEqual(field.name, name)
    }

    /// ASCII case-insensitive equality: field names are tokens, so ASCII folding is exact.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { a in b.withUTF8 { b in namesEqual(a, b) } }
    }

    /// The same comparison over bytes, for names still in a `RawFieldBlock`.
    static func namesEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where a[index] != b[index] {
            guard asciiLowercased(a[index]) == asciiLowercased(b[index]) else { return false }
        }
        return true
    }

    /// `name` with `A`–`Z` made lowercase and every other byte kept: a field name (a token, so
    /// ASCII) lowercased without the Unicode tables `lowercased()` consults. The same String
    /// when it has no uppercase letter.
    package static func asciiLowercased(_ name: String) -> String {
        var name = name
        let upper = name.withUTF8 { bytes in bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } }
        guard upper else { return name }
        return name.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in 0..<bytes.count { buffer[index] = asciiLowercased(bytes[index]) }
                return bytes.count
            }
        }
    }

    @inline(__always)
    package static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    static func validatedField(name: String, value: String) throws(SluiceError) -> Field {
        var nameCopy = name, valueCopy = value
        let error = nameCopy.withUTF8 { nameBytes in
            valueCopy.withUTF8 { valueBytes in check(name: nameBytes, value: valueBytes, nameString: name) }
        }
        if let error { throw invalid(error) }
        return Field(validName: name, value: value.trimmingOptionalWhitespace())
    }

    /// The first rule a field breaks, or nil: the name (non-empty, token characters, no CR/LF/NUL),
    /// then the value (no CR/LF/NUL, no control character but tab).
    static func check(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, nameString: @autoclosure () -> String
    ) -> FieldError? {
        if let (problem, offset) = nameProblem(name) {
            return FieldError(name: nameString(), part: .name, problem: problem, byteOffset: offset)
        }
        if let (problem, offset) = valueProblem(value) {
            return FieldError(name: nameString(), part: .value, problem: problem, byteOffset: offset)
        }
        return nil
    }

    static func invalid(_ error: FieldError) -> SluiceError {
        SluiceError(.invalidHeader, error.description, underlying: error)
    }

    static func nameProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> (FieldError.Problem, Int)? {
        if bytes.isEmpty { return (.emptyName, 0) }
        // The token set as two 64-bit masks, loaded once per name rather than once per byte.
        let (low, high) = HTTPToken.masks
        for offset in bytes.indices {
            let byte = bytes[offset]
            let isToken = byte < 64 ? (low >> UInt64(byte)) & 1 == 1 : byte < 128 && (high >> UInt64(byte &- 64)) & 1 == 1
            if isToken { continue }
            if byte == 0x0D || byte == 0x0A || byte == 0x00 { return (.forbiddenCharacter(byte), offset) }
            return (.notTokenCharacter(byte), offset)
        }
        return nil
    }

    static func valueProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> (FieldError.Problem, Int)? {
        // Eight bytes at a time while the words are plain; a word with a tab or a problem sends
        // the rest to the byte loop below.
        var offset = 0
        if let base = UnsafeRawPointer(bytes.baseAddress) {
            while offset + 8 <= bytes.count, plainWord(base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { offset += 8 }
        }
        for offset in offset..<bytes.count {
            let byte = bytes[offset]
            if byte >= 0x20 && byte != 0x7F || byte == 0x09 { continue }
            if byte == 0x0D || byte == 0x0A || byte == 0x00 { return (.forbiddenCharacter(byte), offset) }
            return (.controlCharacter(byte), offset)
        }
        return nil
    }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0, end = bytes.count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// Whether none of the eight bytes of `word` is below 0x20 or is 0x7F (exact tests from "Bit
    /// Twiddling Hacks": hasless(x, 0x20) and haszero(x ^ 0x7F…)).
    @inline(__always)
    static func plainWord(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let del = word ^ (ones &* 0x7F)
        let is7F = (del &- ones) & ~del & highs
        return below20 | is7F == 0
    }
}
