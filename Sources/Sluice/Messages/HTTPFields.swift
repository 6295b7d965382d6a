#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An ordered list of HTTP header fields.
///
/// - Order is kept exactly as added, and repeated fields are kept (several `Set-Cookie`s stay
///   several).
/// - Names are looked up case-insensitively but keep the case they were given in.
/// - Every name and value is checked when it is added: ``append(name:value:)`` and
///   ``set(name:value:)`` throw ``SluiceError/Code/invalidHeader`` with a ``FieldError`` that says
///   which character at which byte broke which rule. A CR, LF or NUL can never reach the wire, so
///   header injection is impossible.
/// - Leading and trailing spaces and tabs of a value are trimmed (RFC 9110 §5.5).
///
/// ```swift
/// var headers: HTTPFields = ["Accept": "application/json"]
/// try headers.append(name: "Cache-Control", value: "no-cache")
/// try headers.append(name: "cache-control", value: "no-store")
/// headers["CACHE-CONTROL"]                  // "no-cache, no-store"
/// headers.values(for: "Cache-Control")      // ["no-cache", "no-store"]
/// try headers.set(name: "X-Token", value: "a\r\nEvil: 1")   // throws .invalidHeader
/// ```
///
/// A dictionary literal is source code, not input: like a `Dictionary` literal with a repeated key,
/// an invalid literal stops the program with a message naming the field. Build fields from run-time
/// data with ``init(validating:)``, ``append(name:value:)`` or ``set(name:value:)``, which throw.
public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    // Fields live either in `fields`, or (when a transport parsed them from the wire with
    // `init(parsing:)` or `append(nameBytes:valueBytes:)`) in `block`, raw bytes that become Strings only when read.
    // When `block` is set, `fields` is empty. Any other change first turns the block into fields.
    /// One header field: a name, in the case it was given, and its value.
    public struct Field: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public let value: String

        init(validName name: String, value: String) {
            self.name = name
            self.value = value
        }

        public static func == (lhs: Field, rhs: Field) -> Bool {
            HTTPFields.namesEqual(lhs.name, rhs.name) && lhs.value == rhs.value
        }

        public func hash(into hasher: inout Hasher) {
            for byte in name.utf8 { hasher.combine(HTTPFields.asciiLowercased(byte)) }
            hasher.combine(value)
        }

        public var description: String { "\(name): \(value)" }
    }

    /// Why a header name or value was refused. It is the ``SluiceError/underlying`` of the
    /// `.invalidHeader` error, so a test or a caller can match it exactly.
    public struct FieldError: Error, Hashable, Sendable, CustomStringConvertible {
        public enum Part: Hashable, Sendable {
            case name
            case value
        }

        public enum Problem: Hashable, Sendable {
            /// The name is the empty string.
            case emptyName
            /// CR, LF or NUL, in a name or a value (RFC 9110 §5.5: never allowed).
            case forbiddenCharacter(UInt8)
            /// A byte in a name that is not an RFC 9110 `tchar`.
            case notTokenCharacter(UInt8)
            /// A control character other than horizontal tab in a value.
            case controlCharacter(UInt8)
            /// A line of a parsed field section (``HTTPFields/init(parsing:)``) without a colon;
            /// `name` holds the whole line.
            case missingColon
            /// A parsed field section starts with a folded continuation line (RFC 9112 §5.2):
            /// there is no field before it to continue.
            case continuationWithoutField
        }

        /// The field name as given (possibly the bad one).
        public let name: String
        public let part: Part
        public let problem: Problem
        /// The byte offset of the bad character within the name or the value as given.
        public let byteOffset: Int

        public init(name: String, part: Part, problem: Problem, byteOffset: Int) {
            self.name = name
            self.part = part
            self.problem = problem
            self.byteOffset = byteOffset
        }

        public var description: String {
            let subject = part == .name ? "header name \(quoted(name))" : "value of header \(quoted(name))"
            switch problem {
            case .emptyName:
                return "header name is empty"
            case .forbiddenCharacter(let byte):
                return "\(subject) has \(Self.describe(byte)) at byte \(byteOffset); CR, LF and NUL are never allowed in header fields"
            case .notTokenCharacter(let byte):
                return "\(subject) has \(Self.describe(byte)) at byte \(byteOffset), which is not a token character (RFC 9110 §5.6.2)"
            case .controlCharacter(let byte):
                return "\(subject) has control character \(Self.describe(byte)) at byte \(byteOffset); only horizontal tab is allowed"
            case .missingColon:
                return "header line \(quoted(name)) has no colon"
            case .continuationWithoutField:
                return "folded continuation line \(quoted(name)) comes before any header field"
            }
        }

        static func describe(_ byte: UInt8) -> String {
            let hex = "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            switch byte {
            case 0x0D: return "CR (\(hex))"
            case 0x0A: return "LF (\(hex))"
            case 0x00: return "NUL (\(hex))"
            case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))' (\(hex))"
            default: return "byte \(hex)"
            }
        }

        private func quoted(_ s: String) -> String { String(reflecting: s) }
    }

    private var fields: [Field]
    private var block: RawFieldBlock?

    /// No fields.
    public init() { fields = [] }

    /// Fields from run-time data, in order; throws `.invalidHeader` on the first bad name or value.
    public init(validating pairs: some Sequence<(name: String, value: String)>) throws(SluiceError) {
        fields = []
        for (name, value) in pairs { try append(name: name, value: value) }
    }

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

    private enum ParseFailure {
        case field(FieldError)
        /// A folded line: parse again after `unfolded`.
        case continuationNeeded

        var fieldError: FieldError? {
            if case .field(let error) = self { return error }
            return nil
        }
    }

    /// Finds every field of `section`, checking each; the first failure, or nil.
    private static func parse(_ section: [UInt8], into spans: inout [RawFieldBlock.Span]) -> ParseFailure? {
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
    private static func plainLine(
        _ base: UnsafePointer<UInt8>, _ count: Int, at lineStart: Int, masks: (UInt64, UInt64),
        into spans: inout [RawFieldBlock.Span]
    ) -> Int? {
        var index = lineStart
        // The name: token bytes, ended by the first other byte, which must be the colon.
        while index < count {
            let byte = base[index]
            let isToken = byte < 64
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
                return nil                      // a tab or a control byte: the careful path decides
            }
        }
        while valueStart < valueEnd && base[valueStart] == 0x20 { valueStart += 1 }
        while valueEnd > valueStart && base[valueEnd - 1] == 0x20 { valueEnd -= 1 }
        spans.append(RawFieldBlock.Span(
            nameStart: Int32(lineStart), nameEnd: Int32(nameEnd), valueStart: Int32(valueStart), valueEnd: Int32(valueEnd)
        ))
        return index
    }

    /// Whether none of the eight bytes of `word` is below 0x20 or is 0x7F (exact tests from "Bit
    /// Twiddling Hacks": hasless(x, 0x20) and haszero(x ^ 0x7F…)).
    @inline(__always)
    private static func plainWord(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let del = word ^ (ones &* 0x7F)
        let is7F = (del &- ones) & ~del & highs
        return below20 | is7F == 0
    }

    private enum LineResult {
        case next(Int)
        case end
        case failure(ParseFailure)
    }

    /// Any line, checked by the same rules as ``append(name:value:)``: the reference path, for
    /// lines `plainLine` does not take (tabs, folding, the empty line, and every error).
    private static func anyLine(_ buffer: UnsafeBufferPointer<UInt8>, at lineStart: Int, into spans: inout [RawFieldBlock.Span]) -> LineResult {
        let base = buffer.baseAddress!, count = buffer.count
        let newline = memchr(base + lineStart, 0x0A, count - lineStart)
            .map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? count
        var lineEnd = newline
        if lineEnd > lineStart && base[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        if lineEnd == lineStart { return .end }                                  // the empty line ends the section
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
        spans.append(RawFieldBlock.Span(
            nameStart: Int32(lineStart), nameEnd: Int32(lineStart + colon),
            valueStart: Int32(valueStart), valueEnd: Int32(valueStart + kept.count)
        ))
        return .next(newline + 1)
    }

    /// `section` with each folded line joined to the line before it by one space (the line's
    /// own leading and trailing spaces and tabs dropped), every line ended by LF.
    private static func unfolded(_ section: [UInt8]) throws(SluiceError) -> [UInt8] {
        var lines: [[UInt8]] = []
        for raw in section.split(separator: 0x0A, omittingEmptySubsequences: false) {
            var line = Array(raw)
            if line.last == 0x0D { line.removeLast() }
            if line.isEmpty { break }
            guard line[0] == 0x20 || line[0] == 0x09 else { lines.append(line); continue }
            let continuation = line.withUnsafeBufferPointer { Array(trimmed($0)) }
            guard !lines.isEmpty else {
                throw invalid(FieldError(
                    name: String(decoding: line, as: UTF8.self), part: .name, problem: .continuationWithoutField, byteOffset: 0
                ))
            }
            while let last = lines[lines.count - 1].last, last == 0x20 || last == 0x09 { lines[lines.count - 1].removeLast() }
            lines[lines.count - 1] += [0x20] + continuation
        }
        return Array(lines.joined(separator: [0x0A]))
    }

    /// Fields from a literal. An invalid name or value stops the program with a message naming it;
    /// see the type's documentation.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        fields.reserveCapacity(elements.count)
        for (name, value) in elements {
            do {
                try append(name: name, value: value)
            } catch {
                preconditionFailure("invalid HTTPFields literal: \(error.message)")
            }
        }
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { block?.spans.count ?? fields.count }
    public subscript(position: Int) -> Field { block?.field(at: position) ?? fields[position] }

    public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for field in self { hasher.combine(field) }
    }

    // MARK: Lookup

    /// All values of the fields named `name` (any case) joined with ", ", or `nil` if there is none.
    ///
    /// Joining is right for list-valued fields. `Set-Cookie` must not be joined: use
    /// ``values(for:)``.
    public subscript(name: String) -> String? {
        var result: String?
        for value in values(for: name) {
            if result == nil { result = value } else { result! += ", " + value }
        }
        return result
    }

    /// The values of every field named `name` (any case), in order.
    public func values(for name: String) -> [String] {
        if let block {
            return block.spans.indices.filter { block.nameMatches($0, name) }.map { block.value(at: $0) }
        }
        return fields.filter { Self.matches($0, name) }.map(\.value)
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        if let block { return block.spans.indices.contains { block.nameMatches($0, name) } }
        return fields.contains { Self.matches($0, name) }
    }

    // MARK: Changing

    /// Makes room for `count` fields, so adding that many does not reallocate.
    public mutating func reserveCapacity(_ count: Int) {
        if block != nil {
            uniqueBlock().spans.reserveCapacity(count)
        } else {
            fields.reserveCapacity(count)
        }
    }

    /// Adds a field from raw bytes, as a transport reads it off the wire: validated exactly like
    /// ``append(name:value:)`` (spaces and tabs around the value trimmed), but kept as bytes, so
    /// no String is made until the field is read.
    ///
    /// - Throws: as ``append(name:value:)``; nothing changes when it throws.
    public mutating func append(nameBytes: UnsafeRawBufferPointer, valueBytes: UnsafeRawBufferPointer) throws(SluiceError) {
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

    /// The block (which must exist), copied first when another value shares it.
    private mutating func uniqueBlock() -> RawFieldBlock {
        if !isKnownUniquelyReferenced(&block) { block = block!.copy() }
        return block!
    }

    /// Turns raw fields into `fields`, before any change other than appending raw bytes.
    private mutating func materialize() {
        guard let block else { return }
        fields = block.spans.indices.map(block.field(at:))
        self.block = nil
    }

    /// Adds a field after the existing ones, keeping any of the same name.
    ///
    /// - Throws: ``SluiceError/Code/invalidHeader`` with a ``FieldError`` for an empty name, a name
    ///   with a non-token character, CR/LF/NUL anywhere, or a control character in the value.
    public mutating func append(name: String, value: String) throws(SluiceError) {
        let field = try Self.validatedField(name: name, value: value)
        materialize()
        fields.append(field)
    }

    /// Sets `name` to exactly one value: the first field of that name takes the new value and keeps
    /// its place; later ones are removed. Adds the field at the end if there was none.
    ///
    /// - Throws: as ``append(name:value:)``; nothing changes when it throws.
    public mutating func set(name: String, value: String) throws(SluiceError) {
        let field = try Self.validatedField(name: name, value: value)
        materialize()
        if let first = fields.firstIndex(where: { Self.matches($0, name) }) {
            fields[first] = field
            var index = fields.count - 1
            while index > first {
                if Self.matches(fields[index], name) { fields.remove(at: index) }
                index -= 1
            }
        } else {
            fields.append(field)
        }
    }

    /// Removes every field named `name` (any case). Returns how many were removed.
    @discardableResult
    public mutating func remove(name: String) -> Int {
        materialize()
        let before = fields.count
        fields.removeAll { Self.matches($0, name) }
        return before - fields.count
    }

    public var description: String {
        map(\.description).joined(separator: "\n")
    }

    // MARK: Rules

    @inline(__always)
    private static func matches(_ field: Field, _ name: String) -> Bool {
        namesEqual(field.name, name)
    }

    /// ASCII case-insensitive equality: field names are tokens, so ASCII folding is exact.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        namesEqual(a.utf8, b.utf8)
    }

    /// The same comparison over bytes, for names still in a `RawFieldBlock`.
    static func namesEqual(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    @inline(__always)
    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    static func validatedField(name: String, value: String) throws(SluiceError) -> Field {
        var nameCopy = name, valueCopy = value
        let error = nameCopy.withUTF8 { nameBytes in
            valueCopy.withUTF8 { valueBytes in check(name: nameBytes, value: valueBytes, nameString: name) }
        }
        if let error { throw invalid(error) }
        return Field(validName: name, value: trimmed(value))
    }

    /// The first rule a field breaks, or nil: the name (non-empty, token characters, no CR/LF/NUL),
    /// then the value (no CR/LF/NUL, no control character but tab).
    private static func check(
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

    private static func nameProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> (FieldError.Problem, Int)? {
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

    private static func valueProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> (FieldError.Problem, Int)? {
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
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0, end = bytes.count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    private static func trimmed(_ value: String) -> String {
        var value = value
        let shortened = value.withUTF8 { bytes -> String? in
            let kept = trimmed(bytes)
            return kept.count == bytes.count ? nil : String(decoding: kept, as: UTF8.self)
        }
        return shortened ?? value
    }
}

/// Header fields as raw bytes: one buffer, and where each name and value lies in it. Made by a
/// transport through `HTTPFields(parsing:)` or `HTTPFields.append(nameBytes:valueBytes:)`; Strings are made only when a field
/// is read.
///
/// Mutated only through `HTTPFields.uniqueBlock`, i.e. when one `HTTPFields` value holds the only
/// reference, so no two values (and so no two tasks) ever see a write to the same block: that is
/// what makes `@unchecked Sendable` safe here.
final class RawFieldBlock: @unchecked Sendable {
    struct Span {
        var nameStart: Int32
        var nameEnd: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    // Not checked for exclusivity at run time: see the type's comment; these are only written
    // through a uniquely referenced block, one access at a time.
    @exclusivity(unchecked) var bytes: [UInt8] = []
    @exclusivity(unchecked) var spans: [Span] = []

    init() {
        bytes.reserveCapacity(512)
        spans.reserveCapacity(16)
    }

    init(bytes: [UInt8], spans: [Span]) {
        self.bytes = bytes
        self.spans = spans
    }

    func copy() -> RawFieldBlock {
        let copy = RawFieldBlock()
        copy.bytes = bytes
        copy.spans = spans
        return copy
    }

    func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let nameStart = Int32(bytes.count)
        bytes.append(contentsOf: name)
        let valueStart = Int32(bytes.count)
        bytes.append(contentsOf: value)
        spans.append(Span(nameStart: nameStart, nameEnd: valueStart, valueStart: valueStart, valueEnd: Int32(bytes.count)))
    }

    func name(at index: Int) -> String {
        let span = spans[index]
        return bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[Int(span.nameStart)..<Int(span.nameEnd)]), as: UTF8.self)
        }
    }

    func value(at index: Int) -> String {
        let span = spans[index]
        return bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[Int(span.valueStart)..<Int(span.valueEnd)]), as: UTF8.self)
        }
    }

    func field(at index: Int) -> HTTPFields.Field {
        HTTPFields.Field(validName: name(at: index), value: value(at: index))
    }

    /// Whether field `index` is named `name`, ASCII case-insensitively, without making a String.
    func nameMatches(_ index: Int, _ name: String) -> Bool {
        let span = spans[index]
        return HTTPFields.namesEqual(bytes[Int(span.nameStart)..<Int(span.nameEnd)], name.utf8)
    }
}
