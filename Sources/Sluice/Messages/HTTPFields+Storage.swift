extension HTTPFields {
    /// The fields as Sluice's stores keep them (the SQLite and Redis caches, the outbox): one
    /// `name: value` line each, ended by CRLF, as in an HTTP/1.1 head. Read back with
    /// ``init(stored:)``. Names and values were checked when added, so no line can hold a CR or LF
    /// of its own. `package`: a storage format, not API.
    ///
    /// ```swift
    /// let fields: HTTPFields = ["Content-Type": "text/plain", "ETag": "\"x\""]
    /// fields.stored                         // "Content-Type: text/plain\r\nETag: \"x\"\r\n"
    /// try HTTPFields(stored: fields.stored) == fields   // true
    /// ```
    package var stored: String {
        var text = ""
        for field in self { text += field.name + ": " + field.value + "\r\n" }
        return text
    }

    /// Fields read back from ``stored``, checked again as they are parsed.
    ///
    /// - Throws: ``SluiceError/Code/invalidHeader`` when the stored text is damaged.
    package init(stored text: some StringProtocol) throws(SluiceError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Fields read back from the bytes of ``stored``.
    ///
    /// - Throws: ``SluiceError/Code/invalidHeader`` when the stored bytes are damaged.
    package init(stored bytes: some Sequence<UInt8>) throws(SluiceError) {
        try self.init(parsing: Array(bytes))
    }
}
