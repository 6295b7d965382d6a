import Foundation
import SluiceCommandLine

extension FuzzTarget {
    /// `Invocation.parse` on arguments cut at NUL, and `RequestItem(parsing:)` on each: they
    /// return or throw `UsageError` (typed throws), with a message that is one line.
    static let commandLine = FuzzTarget(name: "command-line", summary: "the sluice CLI's argument parser") { data in
        let arguments = FuzzTarget.strings(data)
        do throws(UsageError) {
            _ = try Invocation.parse(arguments)
        } catch {
            require(!error.message.isEmpty && !error.message.contains("\n"), "usage error \(String(reflecting: error.message))")
        }
        for argument in arguments {
            _ = try? RequestItem(parsing: argument)
        }
    }
}
