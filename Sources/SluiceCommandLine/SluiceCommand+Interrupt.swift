import Dispatch
import Foundation
import Sluice

/// Ctrl-C: the call is cancelled and the program ends with 130.
extension SluiceCommand {
    /// Runs the command as ``run()`` does, with Ctrl-C (SIGINT) cancelling the call: a download
    /// keeps its partial file for `-c`, a HAR file is still written, and the exit code is 130
    /// (``ExitCode/interrupted``). A second Ctrl-C ends the process at once, with 130 too.
    ///
    /// ```swift
    /// exit(await SluiceCommand(arguments: Array(CommandLine.arguments.dropFirst())).runInterruptibly())
    /// ```
    public func runInterruptibly() async -> Int32 {
        signal(SIGINT, SIG_IGN)
        let task = Task { await run() }
        let interrupts = Locked(0)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            let count = interrupts.withLock {
                $0 += 1
                return $0
            }
            if count > 1 { _exit(ExitCode.interrupted.rawValue) }
            task.cancel()
        }
        source.resume()
        let code = await task.value
        source.cancel()
        return task.isCancelled ? ExitCode.interrupted.rawValue : code
    }
}
