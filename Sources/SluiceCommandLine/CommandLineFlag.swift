/// One flag of `sluice`: its names, its value, its line in `--help`, and what it sets. The parser
/// and `--help` both read ``Invocation/flags``, so every flag listed is accepted and every flag
/// accepted is listed.
///
/// ```swift
/// import SluiceCommandLine
///
/// let follow = Invocation.flags.first { $0.names.contains("-L") }!
/// follow.names     // ["-F", "-L", "--follow"]
/// ```
package struct CommandLineFlag: Sendable {
    /// Its names: one-letter ones (`-F`) first, then the long one (`--follow`).
    package let names: [String]
    /// The value's name in `--help` (`N`, `FILE`), or nil for a flag without a value.
    package let value: String?
    /// Whether the value may be left out (`--cache` or `--cache=DIR`); it is then only taken
    /// inline, after `=`.
    package let valueIsOptional: Bool
    /// What it does, as `--help` says it (one entry per line).
    package let help: [String]
    /// Sets what the flag asks for on an invocation: the value when it has one.
    let apply: @Sendable (inout Invocation, String?) throws(UsageError) -> Void

    init(
        _ names: [String], value: String? = nil, optional: Bool = false, _ help: String...,
        apply: @escaping @Sendable (inout Invocation, String?) throws(UsageError) -> Void
    ) {
        self.names = names
        self.value = value
        self.valueIsOptional = optional
        self.help = help
        self.apply = apply
    }

    /// Its line (or lines) in `--help`: the names and value in a column of 28, then the help.
    package var helpLines: [String] {
        let shown = names.joined(separator: ", ") + (value.map { valueIsOptional ? "[=\($0)]" : " \($0)" } ?? "")
        let column = 28
        var lines: [String] = []
        for (index, text) in help.enumerated() {
            let left = index == 0 ? "  " + shown : ""
            if left.count >= column - 1 {
                lines.append(left)
                lines.append(String(repeating: " ", count: column) + text)
            } else {
                lines.append(left.padding(toLength: column, withPad: " ", startingAt: 0) + text)
            }
        }
        return lines
    }
}
