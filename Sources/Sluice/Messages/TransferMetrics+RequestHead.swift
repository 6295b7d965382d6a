/// The recorded request head, read back as a request line and fields.
extension TransferMetrics {
    /// ``requestHead`` as its request line (`METHOD TARGET VERSION`) and its fields in order, or
    /// nil when none was recorded. It holds credentials in clear: `package`, for the logger and
    /// the `sluice` command, which show it through ``Redaction`` (``Redaction/requestLine(_:)``
    /// and ``Redaction/value(ofHeader:_:)``).
    ///
    /// ```swift
    /// response.metrics?.requestHeadParts?.requestLine   // "GET /x?page=2 HTTP/1.1"
    /// ```
    package var requestHeadParts: (requestLine: String, fields: [(name: String, value: String)])? {
        guard let head = requestHead else { return nil }
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let first = lines.first else { return nil }
        let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingOptionalWhitespace())
        }
        return (first, fields)
    }
}
