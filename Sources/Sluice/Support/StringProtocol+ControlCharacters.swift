extension StringProtocol {
    /// The text with its control characters (C0, DEL and C1: ESC, BEL, CR, U+009B and the rest)
    /// written as Swift escapes (`\u{1B}`, `\r`), so that what a server sent (a reason phrase, a
    /// header value, a body) can be shown on a terminal without driving it. `package`: for the
    /// logger and the CLI.
    ///
    /// ```swift
    /// "OK\u{1B}]0;pwned\u{07}".escapingControlCharacters()   // "OK\u{1B}]0;pwned\u{07}" as text, 22 characters
    /// ```
    ///
    /// - Parameter keepingLineBreaks: keep LF and tab as they are, for multi-line text such as a body.
    package func escapingControlCharacters(keepingLineBreaks: Bool = false) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            guard value < 0x20 || (0x7F...0x9F).contains(value) else { return false }
            return !(keepingLineBreaks && (value == 0x0A || value == 0x09))
        }
        guard unicodeScalars.contains(where: isControl) else { return String(self) }
        var result = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if isControl(scalar) {
                result.append(contentsOf: scalar.escaped(asASCII: true).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
