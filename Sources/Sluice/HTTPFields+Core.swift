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

    /// No fields.
    public init() { fields = [] }

    /// Fields from run-time data, in order; throws `.invalidHeader` on the first bad name or value.
    public init(validating pairs: some Sequence<(name: String, value: String)>) throws(SluiceError) {
        fields = []
        for (name, value) in pairs { try append(name: name, value: value) }
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

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> Field { fields[position] }

    // MARK: Lookup

    /// All values of the fields named `name` (any case) joined with ", ", or `nil` if there is none.
    ///
    /// Joining is right for list-valued fields. `Set-Cookie` must not be joined: use
    /// ``values(for:)``.
    public subscript(name: String) -> String? {
        var result: String?
        for field in fields where Self.matches(field, name) {
            if result == nil { result = field.value } else { result! += ", " + field.value }
        }
        return result
    }

    /// The values of every field named `name` (any case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.matches($0, name) }.map(\.value)
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.matches($0, name) }
    }

    // MARK: Changing

    /// Adds a field after the existing ones, keeping any of the same name.
    ///
    /// - Throws: ``SluiceError/Code/invalidHeader`` with a ``FieldError`` for an empty name, a name
    ///   with a non-token character, CR/LF/NUL anywhere, or a control character in the value.
    public mutating func append(name: String, value: String) throws(SluiceError) {
        fields.append(try Self.validatedField(name: name, value: value))
    }

    /// Sets `name` to exactly one value: the first field of that name takes the new value and keeps
    /// its place; later ones are removed. Adds the field at the end if there was none.
    ///
    /// - Throws: as ``append(name:value:)``; nothing changes when it throws.
    public mutating func set(name: String, value: String) throws(SluiceError) {
        let field = try Self.validatedField(name: name, value: value)
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
        let before = fields.count
        fields.removeAll { Self.matches($0, name) }
        return before - fields.count
    }

    public var description: String {
        fields.map(\.description).joined(separator: "\n")
    }

    // MARK: Rules

    @inline(__always)
    private static func matches(_ field: Field, _ name: String) -> Bool {
        namesEqual(field.name, name)
    }

    /// ASCII case-insensitive equality: field names are tokens, so ASCII folding is exact.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    @inline(__always)
    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    static func validatedField(name: String, value: String) throws(SluiceError) -> Field {
        if let problem = nameProblem(name) {
            throw invalid(FieldError(name: name, part: .name, problem: problem.0, byteOffset: problem.1))
        }
        if let problem = valueProblem(value) {
            throw invalid(FieldError(name: name, part: .value, problem: problem.0, byteOffset: problem.1))
        }
        return Field(validName: name, value: trimmed(value))
    }

    private static func invalid(_ error: FieldError) -> SluiceError {
        SluiceError(.invalidHeader, error.description, underlying: error)
    }

    private static func nameProblem(_ name: String) -> (FieldError.Problem, Int)? {
        var name = name
        return name.withUTF8 { bytes -> (FieldError.Problem, Int)? in
            if bytes.isEmpty { return (.emptyName, 0) }
            for offset in bytes.indices {
                let byte = bytes[offset]
                if HTTPToken.isTokenCharacter(byte) { continue }
                if byte == 0x0D || byte == 0x0A || byte == 0x00 { return (.forbiddenCharacter(byte), offset) }
                return (.notTokenCharacter(byte), offset)
            }
            return nil
        }
    }

    private static func valueProblem(_ value: String) -> (FieldError.Problem, Int)? {
        var value = value
        return value.withUTF8 { bytes -> (FieldError.Problem, Int)? in
            for offset in bytes.indices {
                let byte = bytes[offset]
                if byte >= 0x20 && byte != 0x7F || byte == 0x09 { continue }
                if byte == 0x0D || byte == 0x0A || byte == 0x00 { return (.forbiddenCharacter(byte), offset) }
                return (.controlCharacter(byte), offset)
            }
            return nil
        }
    }

    private static func trimmed(_ value: String) -> String {
        var value = value
        let trimmed = value.withUTF8 { bytes -> String? in
            var start = 0, end = bytes.count
            while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
            if start == 0 && end == bytes.count { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        return trimmed ?? value
    }
}
