// sluice-reachability-probe: the reachability monitor and gate, run inside a network namespace by
// Tests/SluiceReachabilityTests (`ip netns exec NAME sluice-reachability-probe …`).
//
//     sluice-reachability-probe watch SECONDS   prints the status, then each change, for SECONDS
//     sluice-reachability-probe gate URL        sends URL through the fail-fast gate; prints
//                                               "<code> <milliseconds>"
import Dispatch
import Foundation
import Sluice
import SluiceReachability

/// A transport that counts what reaches it (the gate must stop requests before this).
struct RecordingTransport: HTTPTransport {
    func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        FileHandle.standardOutput.write(Data("transport-called\n".utf8))
        return HTTPResponse(status: .ok)
    }
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
var status: Int32 = 0
do {
    switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
    case (3, "watch"):
        let monitor = try LinuxReachabilityMonitor()
        let seconds = Double(arguments[2]) ?? 5
        let watcher = Task {
            for await update in monitor.statusUpdates { say("status \(update)") }
        }
        try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
        watcher.cancel()
        monitor.stop()
    case (3, "gate"):
        let monitor = try LinuxReachabilityMonitor()
        let pipeline = Pipeline(middlewares: [ReachabilityGateMiddleware(monitor: monitor, mode: .failFast)], transport: RecordingTransport())
        let start = ContinuousClock.now
        do {
            _ = try await pipeline.send(HTTPRequest(url: URL(string: arguments[2])!))
            say("sent \(start.duration(to: .now).components.attoseconds / 1_000_000_000_000_000)")
        } catch let error as SluiceError {
            let elapsed = start.duration(to: .now)
            say("\(error.code) \(elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000)")
        }
    default:
        say("usage: sluice-reachability-probe watch SECONDS | gate URL")
        status = 2
    }
} catch {
    say("error \(error)")
    status = 1
}
exit(status)
