/// Header fields as raw bytes: one buffer, and where each name and value lies in it. Made by
/// `HTTPFields(parsing:)` (CurlTransport parses each response head with it) and grown by
/// `HTTPFields.append(nameBytes:valueBytes:)`; Strings are made only when a field is read.
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
        guard Int(span.nameEnd - span.nameStart) == name.utf8.count else { return false }
        var name = name
        return bytes.withUnsafeBufferPointer { bytes in
            name.withUTF8 { HTTPFields.namesEqual(UnsafeBufferPointer(rebasing: bytes[Int(span.nameStart)..<Int(span.nameEnd)]), $0) }
        }
    }
}
