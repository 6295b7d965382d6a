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
/// import Sluice
///
/// var headers: HTTPFields = ["Accept": "application/json"]
/// try headers.append(name: "Cache-Control", value: "no-cache")
/// try headers.append(name: "cache-control", value: "no-store")
/// headers["CACHE-CONTROL"]                  // "no-cache, no-store"
/// headers.values(for: "Cache-Control")      // ["no-cache", "no-store"]
/// try headers.set(name: "X-Token", value: "a\r\nEvil: 1")   // throws .invalidHeader
/// ```
///
/// A dictionary literal often holds run-time data (`["Authorization": "Bearer \(token)"]`, with a
/// token read from a file that ends in a newline), so an invalid literal never stops the program:
/// the bad field is left out and remembered (``invalidLiteral``), and sending a request or
/// returning a response that carries it throws that field's `.invalidHeader` error: a `Pipeline`
/// checks the fields of each request it is given and that reaches its transport, and of each
/// response it returns; `CurlTransport` checks again. ``validated()`` throws the same error where
/// the literal is written.
///
/// ```swift
/// import Sluice
///
/// let token = "abc\n"                                      // as read from a file
/// let headers: HTTPFields = ["Authorization": "Bearer \(token)"]
/// headers.invalidLiteral?.description
/// // "value of header \"Authorization\" has LF (0x0A) at byte 10; CR, LF and NUL are never allowed in header fields"
/// try headers.validated()                                  // throws .invalidHeader
/// ```
public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    // Fields live either in `fields`, or (when `init(parsing:)` read them off the wire, as
    // CurlTransport does with each response head) in `block`, raw bytes that become Strings only
    // when read. When `block` is set, `fields` is empty. Any change other than appending raw bytes
    // first turns the block into fields.
    var fields: [Field]
    var block: RawFieldBlock?
    /// The first field a dictionary literal could not take, kept so that sending it throws.
    private var literalProblem: LiteralProblem?

    /// A box, so that fields without a problem stay one pointer larger, not one error larger.
    private final class LiteralProblem: Sendable {
        let error: FieldError
        init(_ error: FieldError) { self.error = error }
    }

    /// No fields.
    public init() { fields = [] }

    /// Fields from run-time data, in order; throws `.invalidHeader` on the first bad name or value.
    public init(validating pairs: some Sequence<(name: String, value: String)>) throws(SluiceError) {
        fields = []
        for (name, value) in pairs { try append(name: name, value: value) }
    }

    /// Fields from a literal. A field with an invalid name or value is left out, and the first
    /// such field's error is kept in ``invalidLiteral``: sending these fields throws it (see the
    /// type's documentation). Nothing traps.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = []
        fields.reserveCapacity(elements.count)
        for (name, value) in elements {
            do throws(SluiceError) {
                try append(name: name, value: value)
            } catch {
                if literalProblem == nil, let fieldError = error.underlying as? FieldError {
                    literalProblem = LiteralProblem(fieldError)
                }
            }
        }
    }

    /// Why a field of the dictionary literal these fields were made from was left out (the first
    /// such field), or `nil` when every field was valid. Fields made any other way never have one:
    /// ``append(name:value:)``, ``set(name:value:)`` and ``init(validating:)`` throw instead.
    public var invalidLiteral: FieldError? { literalProblem?.error }

    /// These fields, or the `.invalidHeader` error of the field their literal left out.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let token = "abc"
    /// let headers = try (["Authorization": "Bearer \(token)"] as HTTPFields).validated()
    /// ```
    ///
    /// - Throws: ``SluiceError/Code/invalidHeader`` with the ``FieldError`` of ``invalidLiteral``.
    @discardableResult
    public func validated() throws(SluiceError) -> HTTPFields {
        if let literalProblem { throw Self.invalid(literalProblem.error) }
        return self
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { block?.spans.count ?? fields.count }
    public subscript(position: Int) -> Field { block?.field(at: position) ?? fields[position] }

    public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        lhs.count == rhs.count && lhs.invalidLiteral == rhs.invalidLiteral && lhs.elementsEqual(rhs)
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
        forEachValue(named: name) { value in
            if result == nil { result = value } else { result! += ", " + value }
        }
        return result
    }

    /// The values of every field named `name` (any case), in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        forEachValue(named: name) { values.append($0) }
        return values
    }

    /// Calls `body` with the value of every field named `name` (any case), in order, making a
    /// String of a raw field's value only when its name matches.
    private func forEachValue(named name: String, _ body: (String) -> Void) {
        if let block {
            for index in block.spans.indices where block.nameMatches(index, name) { body(block.value(at: index)) }
        } else {
            for field in fields where Self.matches(field, name) { body(field.value) }
        }
    }

    /// Each field's name, in order, without reading the values.
    package var names: [String] {
        if let block { return block.spans.indices.map(block.name(at:)) }
        return fields.map(\.name)
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        if let block { return block.spans.indices.contains { block.nameMatches($0, name) } }
        return fields.contains { Self.matches($0, name) }
    }

    /// The names, lowercased, of the fields whose values differ from `base`'s: added, changed or
    /// repeated (a name counts when its list of values, in order, is not `base`'s). `package`: for
    /// a stage that marks what it added as carrying credentials.
    ///
    /// ```swift
    /// let sent: HTTPFields = ["Accept": "*/*"]
    /// var signed = sent
    /// try signed.set(name: "X-Signature", value: "abc")
    /// signed.changedNames(from: sent)   // ["x-signature"]
    /// ```
    package func changedNames(from base: HTTPFields) -> Set<String> {
        // The usual change, fields added after the ones there were: the added fields' names, and
        // no value is read or compared but the kept ones (equal Strings of one storage compare at
        // once).
        if block == nil, base.block == nil, fields.count >= base.fields.count,
            fields.prefix(base.fields.count).elementsEqual(base.fields)
        {
            var added = Set<String>(minimumCapacity: fields.count - base.fields.count)
            for field in fields[base.fields.count...] { added.insert(Self.asciiLowercased(field.name)) }
            return added
        }
        var changed: Set<String> = []
        for field in self {
            let name = Self.asciiLowercased(field.name)
            if !changed.contains(name), !base.contains(field.name) || base.values(for: field.name) != values(for: field.name) {
                changed.insert(name)
            }
        }
        return changed
    }

    // MARK: Changing

    /// Makes room for `count` fields, so adding that many does not reallocate. A hint, held to
    /// 0...4,096 (the standard library's arrays trap on a capacity they cannot allocate).
    public mutating func reserveCapacity(_ count: Int) {
        let count = count.clamped(to: 0...4096)
        if block != nil {
            uniqueBlock().spans.reserveCapacity(count)
        } else {
            fields.reserveCapacity(count)
        }
    }

    /// The block (which must exist), copied first when another value shares it.
    mutating func uniqueBlock() -> RawFieldBlock {
        if !isKnownUniquelyReferenced(&block) { block = block!.copy() }
        return block!
    }

    /// Turns raw fields into `fields`, before any change other than appending raw bytes.
    mutating func materialize() {
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
        set(try Self.validatedField(name: name, value: value))
    }

    /// Sets `field` as ``set(name:value:)`` does, without checking it again: every `Field` was
    /// checked when it was made (a middleware copying fields it already holds).
    package mutating func set(_ field: Field) {
        materialize()
        let name = field.name
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
}
