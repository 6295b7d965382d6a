/// A command line `sluice` cannot run: one line that says what was wrong, shown on standard error
/// with exit code 2.
///
/// ```swift
/// do { _ = try Invocation.parse(["--retry", "many", "example.com"]) }
/// catch { print(error) }    // --retry expects a whole number from 0 to 10, not "many"
/// ```
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    /// Control characters in `message` (from an argument: a newline, an escape sequence) are
    /// shown as Swift escapes (`\n`, `\u{1B}`), so the message stays one line and cannot drive
    /// the terminal.
    public init(_ message: String) {
        self.message = message.unicodeScalars.contains(where: Self.isControl) ? Self.escapingControls(message) : message
    }

    public var description: String { message }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func escapingControls(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) { result.append(contentsOf: scalar.escaped(asASCII: true).unicodeScalars) } else { result.append(scalar) }
        }
        return String(result)
    }
}
