import Foundation
import Sluice

/// The write end of the pipe the SIGINT handler writes a byte to: set once, before the handler is
/// installed, and only read after, so the handler's unsynchronised read is safe; `unchecked` keeps
/// the access free of the runtime's exclusivity bookkeeping, which a signal handler must not touch.
@exclusivity(unchecked) nonisolated(unsafe) private var interruptPipeWriteEnd: Int32 = -1

/// The SIGINT handler: one `write(2)` to the pipe (async-signal-safe), nothing else.
private let interruptHandler: @convention(c) (Int32) -> Void = { _ in
    var byte: UInt8 = 1
    _ = write(interruptPipeWriteEnd, &byte, 1)
}

/// Ctrl-C: the call is cancelled and the program ends with 130.
extension SluiceCommand {
    /// Runs the command as ``run()`` does, with Ctrl-C (SIGINT) cancelling the call: a download
    /// keeps its partial file for `-c`, a HAR file is still written, and the exit code is 130
    /// (``ExitCode/interrupted``). A second Ctrl-C ends the process at once, with 130 too.
    ///
    /// The signal handler only writes a byte to a pipe; a thread of its own reads it and cancels
    /// the call. (A signal mask cannot do: on Linux the main thread waits in `sigsuspend` with
    /// every signal open once the program's async main takes over.)
    ///
    /// ```swift
    /// import Foundation
    /// import SluiceCommandLine
    ///
    /// exit(await SluiceCommand(arguments: Array(CommandLine.arguments.dropFirst())).runInterruptibly())
    /// ```
    package func runInterruptibly() async -> Int32 {
        let running = Locked<Task<Int32, Never>?>(nil)
        let interrupts = Locked(0)
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            interruptPipeWriteEnd = ends[1]
            let readEnd = ends[0]
            let reader = Thread {
                var byte: UInt8 = 0
                while true {
                    let count = read(readEnd, &byte, 1)
                    if count < 0 && errno == EINTR { continue }
                    guard count == 1 else { return }
                    let seen = interrupts.withLock {
                        $0 += 1
                        return $0
                    }
                    if seen > 1 { _exit(ExitCode.interrupted.rawValue) }
                    running.withLock { $0 }?.cancel()
                }
            }
            reader.name = "sluice-interrupts"
            reader.start()
            var action = sigaction()
            action.__sigaction_handler.sa_handler = interruptHandler
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(SIGINT, &action, nil)
        }
        let task = Task { await run() }
        running.withLock { $0 = task }
        if interrupts.withLock({ $0 }) > 0 { task.cancel() }  // a Ctrl-C just before the task was known
        let code = await task.value
        return interrupts.withLock { $0 } > 0 ? ExitCode.interrupted.rawValue : code
    }
}
