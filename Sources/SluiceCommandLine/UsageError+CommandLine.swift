/// A command line `sluice` cannot run: one line that says what was wrong, shown on standard error
/// with exit code 2.
///
/// ```swift
/// do { _ = try Invocation.parse(["--retry", "many", "example.com"]) }
/// catch { print(error) }    // --retry expects a whole number from 0 to 10, not "many"
/// ```
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
