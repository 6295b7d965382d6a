// sluice: an HTTP client built from Sluice's middleware. See `sluice --help`.
import Foundation
import SluiceCommandLine

let finished = DispatchSemaphore(value: 0)
// Written by the task before it signals `finished`; read only after the wait.
nonisolated(unsafe) var code: Int32 = 0
Task.detached {
    code = await SluiceCommand(arguments: Array(CommandLine.arguments.dropFirst())).run()
    finished.signal()
}
finished.wait()
exit(code)
