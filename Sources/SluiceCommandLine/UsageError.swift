import Sluice

/// A command line `sluice` cannot run: one line that says what was wrong, shown on standard error
/// with exit code 2.
///
/// ```swift
/// import SluiceCommandLine
///
/// do { _ = try Invocation.parse(["--retry", "many", "example.com"]) }
/// catch { print(error) }    // --retry expects a whole number from 0 to 10, not "many"
/// ```
package struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the command line.
    package let message: String

    /// Control characters in `message` (from an argument: a newline, an escape sequence) are
    /// shown as Swift escapes (`\n`, `\u{1B}`), so the message stays one line and cannot drive
    /// the terminal.
    package init(_ message: String) {
        self.message = message.escapingControlCharacters()
    }

    package var description: String { message }
}
