/// A key compared byte for byte (its UTF-8), not as Swift compares strings: "café" written with
/// one accented letter (NFC) and with a letter and a combining accent (NFD) are equal `String`s,
/// but two keys in Redis. Every store of a key (the memory rate-limit store, the learned limits,
/// the turns of waiting calls) keeps this identity, the one a shared store gives it, so a key is
/// one key wherever it is kept (issue 53, item 12).
struct ExactKey: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }
}
