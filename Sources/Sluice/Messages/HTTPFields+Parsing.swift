#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fields read off the wire: an HTTP/1.1 field section parsed in one pass into a `RawFieldBlock`.
extension HTTPFields {
    /// Fields parsed from an HTTP/1.1 field section as it comes off the wire: `name: value` lines,
    /// each ended by CRLF or a bare LF, up to the end of `section` or the first empty line.
    ///
    /// Each field is checked exactly like ``append(name:value:)`` and its value trimmed; a line
    /// without a colon is refused too. Obsolete folded lines (a line starting with a space or tab,
    /// RFC 9112 §5.2) are joined to the field before them with one space. The bytes are kept as
    /// they are, in one buffer: no String is made until a field is read, so a transport pays one
    /// copy per response rather than one per field.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let fields = try HTTPFields(parsing: Array("Content-Type: text/plain\r\nETag: \"x\"\r\n".utf8))
    /// fields["etag"]   // "\"x\""
    /// ```
    ///
    /// - Throws: ``SluiceError/Code/invalidHeader`` with a ``FieldError`` for the first bad line.
    public init(parsing section: [UInt8]) throws(SluiceError) {
        fields = []
        var bytes = section
        var spans: [RawFieldBlock.Span] = []
        spans.reserveCapacity(16)
        if let error = Self.parse(bytes, into: &spans) {
            guard case .continuationNeeded = error else { throw Self.invalid(error.fieldError!) }
            // Rare: rewrite the folded lines as single lines, then parse that.
            bytes = try Self.unfolded(bytes)
            spans.removeAll(keepingCapacity: true)
            if let error = Self.parse(bytes, into: &spans) { throw Self.invalid(error.fieldError!) }
        }
        block = spans.isEmpty ? nil : RawFieldBlock(bytes: bytes, spans: spans)
    }

    enum ParseFailure {
        case field(FieldError)
        /// A folded line: parse again after `unfolded`.
        case continuationNeeded

        var fieldError: FieldError? {
            if case .field(let error) = self { return error }
            return nil
        }
    }

    /// Finds every field of `section`, checking each; the first failure, or nil.
    static func parse(_ section: [UInt8], into spans: inout [RawFieldBlock.Span]) -> ParseFailure? {
        section.withUnsafeBufferPointer { buffer -> ParseFailure? in
            guard let base = buffer.baseAddress else { return nil }
            let masks = HTTPToken.masks
            var index = 0
            while index < buffer.count {
                if let next = plainLine(base, buffer.count, at: index, masks: masks, into: &spans) {
                    index = next
                    continue
                }
                switch anyLine(buffer, at: index, into: &spans) {
                case .next(let next): index = next
                case .end: return nil
                case .failure(let failure): return failure
                }
            }
            return nil
        }
    }

    /// The common line in one pass: a token name, a colon, a value of plain bytes (no tab, no
    /// control character), then CRLF, LF or the end. Appends its span and returns where the next
    /// line starts; nil for anything else, which `anyLine` then reads.
    @inline(__always)
    static func plainLine(
        _ base: UnsafePointer<UInt8>, _ count: Int, at lineStart: Int, masks: (UInt64, UInt64),
        into spans: inout [RawFieldBlock.Span]
    ) -> Int? {
        var index = lineStart
        // The name: token bytes, ended by the first other byte, which must be the colon.
        while index < count {
            let byte = base[index]
            let isToken =
                byte < 64
                ? (masks.0 >> UInt64(byte)) & 1 == 1
                : byte < 128 && (masks.1 >> UInt64(byte &- 64)) & 1 == 1
            if !isToken { break }
            index += 1
        }
        guard index > lineStart, index < count, base[index] == 0x3A else { return nil }
        let nameEnd = index
        index += 1
        // The value: whole words of plain bytes, then byte by byte up to the first control byte.
        let raw = UnsafeRawPointer(base)
        while index + 8 <= count, plainWord(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { index += 8 }
        while index < count, base[index] >= 0x20 && base[index] != 0x7F { index += 1 }
        var valueStart = nameEnd + 1, valueEnd = index
        if index < count {
            if base[index] == 0x0A {
                index += 1
            } else if base[index] == 0x0D && (index + 1 == count || base[index + 1] == 0x0A) {
                index = Swift.min(count, index + 2)
            } else {
                return nil  // a tab or a control byte: the careful path decides
            }
        }
        while valueStart < valueEnd && base[valueStart] == 0x20 { valueStart += 1 }
        while valueEnd > valueStart && base[valueEnd - 1] == 0x20 { valueEnd -= 1 }
        spans.append(
            RawFieldBlock.Span(
                nameStart: Int32(lineStart), nameEnd: Int32(nameEnd), valueStart: Int32(valueStart), valueEnd: Int32(valueEnd)
            ))
        return index
    }

    enum LineResult {
        case next(Int)
        case end
        case failure(ParseFailure)
    }

    /// Any line, checked by the same rules as ``append(name:value:)``: the reference path, for
    /// lines `plainLine` does not take (tabs, folding, the empty line, and every error).
    static func anyLine(_ buffer: UnsafeBufferPointer<UInt8>, at lineStart: Int, into spans: inout [RawFieldBlock.Span]) -> LineResult {
        let base = buffer.baseAddress!, count = buffer.count
        let newline =
            memchr(base + lineStart, 0x0A, count - lineStart)
            .map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? count
        var lineEnd = newline
        if lineEnd > lineStart && base[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        if lineEnd == lineStart { return .end }  // the empty line ends the section
        let first = base[lineStart]
        if first == 0x20 || first == 0x09 { return .failure(.continuationNeeded) }
        let line = UnsafeBufferPointer(rebasing: buffer[lineStart..<lineEnd])
        guard let found = memchr(line.baseAddress!, Int32(UInt8(ascii: ":")), line.count) else {
            return .failure(.field(FieldError(name: String(decoding: line, as: UTF8.self), part: .name, problem: .missingColon, byteOffset: 0)))
        }
        let colon = UnsafeRawPointer(found) - UnsafeRawPointer(line.baseAddress!)
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        let value = UnsafeBufferPointer(rebasing: line[(colon + 1)...])
        if let error = check(name: name, value: value, nameString: String(decoding: name, as: UTF8.self)) {
            return .failure(.field(error))
        }
        let kept = trimmed(value)
        let valueStart = kept.baseAddress.map { $0 - base } ?? lineEnd
        spans.append(
            RawFieldBlock.Span(
                nameStart: Int32(lineStart), nameEnd: Int32(lineStart + colon),
                valueStart: Int32(valueStart), valueEnd: Int32(valueStart + kept.count)
            ))
        return .next(newline + 1)
    }

    /// `section` with each folded line joined to the line before it by one space (the line's
    /// own leading and trailing spaces and tabs dropped), every line ended by LF.
    static func unfolded(_ section: [UInt8]) throws(SluiceError) -> [UInt8] {
        var lines: [[UInt8]] = []
        for raw in section.split(separator: 0x0A, omittingEmptySubsequences: false) {
            var line = Array(raw)
            if line.last == 0x0D { line.removeLast() }
            if line.isEmpty { break }
            guard line[0] == 0x20 || line[0] == 0x09 else { lines.append(line); continue }
            let continuation = line.withUnsafeBufferPointer { Array(trimmed($0)) }
            guard !lines.isEmpty else {
                throw invalid(
                    FieldError(
                        name: String(decoding: line, as: UTF8.self), part: .name, problem: .continuationWithoutField, byteOffset: 0
                    ))
            }
            while let last = lines[lines.count - 1].last, last == 0x20 || last == 0x09 { lines[lines.count - 1].removeLast() }
            lines[lines.count - 1] += [0x20] + continuation
        }
        return Array(lines.joined(separator: [0x0A]))
    }

    /// Adds a field from raw bytes: validated exactly like
    /// ``append(name:value:)`` (spaces and tabs around the value trimmed), but kept as bytes, so
    /// no String is made until the field is read.
    ///
    /// - Throws: as ``append(name:value:)``; nothing changes when it throws.
    package mutating func append(nameBytes: UnsafeRawBufferPointer, valueBytes: UnsafeRawBufferPointer) throws(SluiceError) {
        let name = UnsafeBufferPointer(start: nameBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: nameBytes.count)
        var value = UnsafeBufferPointer(start: valueBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: valueBytes.count)
        if let error = Self.check(name: name, value: value, nameString: String(decoding: name, as: UTF8.self)) {
            throw Self.invalid(error)
        }
        value = Self.trimmed(value)
        if !fields.isEmpty {
            fields.append(Field(validName: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
            return
        }
        if block != nil {
            uniqueBlock().append(name: name, value: value)
        } else {
            let new = RawFieldBlock()
            new.append(name: name, value: value)
            block = new
        }
    }
}
