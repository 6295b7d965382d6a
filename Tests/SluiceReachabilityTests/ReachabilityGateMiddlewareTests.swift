import Foundation
import Sluice
import SluiceCurl
import SluiceReachability
import SluiceTestSupport
import SluiceTesting
import Testing

/// A monitor the test sets by hand.
final class ManualMonitor: ReachabilityMonitor {
    private let state = Locked<(status: ReachabilityStatus, subscribers: [AsyncStream<ReachabilityStatus>.Continuation])>((.unknown, []))

    init(_ status: ReachabilityStatus) { state.withLock { $0.status = status } }

    var status: ReachabilityStatus { state.withLock { $0.status } }

    /// How many streams of ``statusUpdates`` were made: a gate waiting for the network has one.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    var statusUpdates: AsyncStream<ReachabilityStatus> {
        AsyncStream { continuation in
            state.withLock { state in
                continuation.yield(state.status)
                state.subscribers.append(continuation)
            }
        }
    }

    func set(_ status: ReachabilityStatus) {
        let subscribers = state.withLock { state in
            state.status = status
            return state.subscribers
        }
        for subscriber in subscribers { subscriber.yield(status) }
    }
}

@Suite("ReachabilityGateMiddleware", .timeLimit(.minutes(2)))
struct ReachabilityGateTests {
    let url = URL(string: "https://api.example.com/x")!

    @Test func failFastThrowsOfflineWithoutTouchingTheNetwork() async throws {
        let harness = MiddlewareHarness(ReachabilityGateMiddleware(monitor: ManualMonitor(.unreachable), mode: .failFast), replies: [.status(.ok)])
        await #expect {
            _ = try await harness.send(HTTPRequest(url: url))
        } throws: { error in
            (error as? SluiceError)?.code == .offline
                && (error as? SluiceError)?.message == "the network is unreachable; GET https://api.example.com/x was not sent"
        }
        #expect(harness.forwarded.isEmpty)
    }

    @Test func reachableUnknownAndLoopbackPass() async throws {
        for status in [ReachabilityStatus.reachable(.wired), .unknown] {
            let harness = MiddlewareHarness(ReachabilityGateMiddleware(monitor: ManualMonitor(status)), replies: [.status(.ok)])
            #expect(try await harness.send(HTTPRequest(url: url)).status.code == 200)
        }
        let offline = MiddlewareHarness(ReachabilityGateMiddleware(monitor: ManualMonitor(.unreachable)), replies: Array(repeating: .status(.ok), count: 4))
        for loopback in ["http://127.0.0.1:8080/a", "http://localhost/a", "http://[::1]:9/a", "http://127.9.9.9/"] {
            #expect(try await offline.send(HTTPRequest(url: URL(string: loopback)!)).status.code == 200, "\(loopback)")
        }
    }

    /// What the gate decides on is what goes on the wire: curl sends `127.1`, `2130706433` and
    /// `0x7f.0.0.1` to 127.0.0.1, so offline they pass as loopback, and reach the server.
    @Test(arguments: ["127.1", "2130706433", "0x7f.0.0.1"])
    func aLoopbackHostInAnyFormCurlAcceptsPasses(host: String) async throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 200, body: "here"))
        let pipeline = Pipeline(
            middlewares: [ReachabilityGateMiddleware(monitor: ManualMonitor(.unreachable), mode: .failFast)], transport: CurlTransport())
        let response = try await pipeline.send(HTTPRequest(url: URL(string: "http://\(host):\(server.port)/x")!))
        #expect(response.text == "here")
        #expect(server.requests.count == 1)
    }

    @Test func waitForConnectivityProceedsWhenTheNetworkReturns() async throws {
        let monitor = ManualMonitor(.unreachable)
        let harness = MiddlewareHarness(ReachabilityGateMiddleware(monitor: monitor, mode: .waitForConnectivity(timeout: .seconds(5))), replies: [.status(.ok)])
        let request = Task { try await harness.send(HTTPRequest(url: url)) }
        try await Wait.until("the gate waits for the network") { monitor.subscriberCount == 1 }
        #expect(harness.forwarded.isEmpty)
        monitor.set(.reachable(.wireless))
        #expect(try await request.value.status.code == 200)
    }

    @Test func waitForConnectivityGivesUpAfterItsTimeout() async throws {
        let harness = MiddlewareHarness(
            ReachabilityGateMiddleware(monitor: ManualMonitor(.unreachable), mode: .waitForConnectivity(timeout: .milliseconds(100))),
            replies: [.status(.ok)])
        await #expect {
            _ = try await harness.send(HTTPRequest(url: url))
        } throws: {
            ($0 as? SluiceError)?.code == .offline
                && ($0 as? SluiceError)?.message == "the network stayed unreachable for 0.1 seconds; GET https://api.example.com/x was not sent"
        }
        #expect(harness.forwarded.isEmpty)
    }

    /// A call whose deadline comes before the gate's timeout waits only until its deadline, and
    /// says so: `.timedOut`, not `.offline`.
    @Test func theWaitEndsAtTheCallsDeadline() async throws {
        let harness = MiddlewareHarness(
            ReachabilityGateMiddleware(monitor: ManualMonitor(.unreachable), mode: .waitForConnectivity(timeout: .seconds(300))),
            replies: [.status(.ok)])
        let start = ContinuousClock.now
        await #expect {
            _ = try await harness.send(HTTPRequest(url: url), context: RequestContext(deadline: .now + .milliseconds(200)))
        } throws: { error in
            guard let error = error as? SluiceError, error.code == .timedOut else { return false }
            return error.message.hasPrefix("the network stayed unreachable until the call's deadline, 0.")
                && error.message.hasSuffix(" seconds away; GET https://api.example.com/x was not sent")
        }
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(30)))
        #expect(harness.forwarded.isEmpty)
    }

    /// A call cancelled while the gate waits ends at once, cancelled, not `.offline` when its
    /// timeout (300 s here) passes.
    @Test func aCallCancelledWhileWaitingEndsAtOnce() async throws {
        let monitor = ManualMonitor(.unreachable)
        let harness = MiddlewareHarness(
            ReachabilityGateMiddleware(monitor: monitor, mode: .waitForConnectivity(timeout: .seconds(300))), replies: [.status(.ok)])
        let call = Task { try await harness.send(HTTPRequest(url: url)) }
        try await Wait.until("the gate waits for the network") { monitor.subscriberCount == 1 }
        let cancelled = ContinuousClock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(cancelled.duration(to: .now) < TestTiming.scaled(.seconds(30)))
        #expect(harness.forwarded.isEmpty)
    }

    /// The gate's error quotes the request under the client's privacy policy.
    @Test func theOfflineErrorHidesWhatTheClientsPolicyNames() async throws {
        let transport = MockTransport(replies: [.status(.ok)])
        let client = Client(
            transport: transport, middlewares: [ReachabilityGateMiddleware(monitor: ManualMonitor(.unreachable))],
            configuration: .init(redaction: Redaction.default.adding(parameters: ["pin"])))
        await #expect {
            _ = try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/pay?pin=1234&token=T&n=1")!))
        } throws: {
            ($0 as? SluiceError)?.message == "the network is unreachable; GET https://api.example.com/pay?pin=<redacted>&token=<redacted>&n=1 was not sent"
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func theHostProbeConnectsOrNot() async throws {
        let server = try MockWebServer()
        let port = UInt16(server.url("/").port!)
        #expect(await HostProbe(host: "127.0.0.1", port: port).isReachable())
        server.shutdown()
        #expect(await !HostProbe(host: "127.0.0.1", port: port, timeout: .milliseconds(300)).isReachable())
        #expect(await !HostProbe(host: "no-such-host.invalid", port: 80, timeout: .milliseconds(300)).isReachable())
    }

    /// The monitor's status matches what `ip route` says of this machine: reachable over the
    /// device of a default route (its kind from `ip -d link`: `link/ether` is wired, a device with
    /// a `wireless` folder is wireless), unreachable without one.
    @Test func theMonitorSeesThisMachine() async throws {
        var devices: [String] = []
        for family in ["-4", "-6"] {
            let ip = Process()
            ip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            ip.arguments = ["ip", family, "-o", "route", "show", "default"]
            let (output, status) = try await Blocking.output(of: ip)
            #expect(status == 0)
            for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
                let words = line.split(separator: " ")
                if let dev = words.firstIndex(of: "dev"), dev + 1 < words.count { devices.append(String(words[dev + 1])) }
            }
        }
        var expected: Set<ReachabilityStatus> = []
        for device in devices {
            let link = Process()
            link.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            link.arguments = ["ip", "-d", "-o", "link", "show", "dev", device]
            let text = String(decoding: try await Blocking.output(of: link).output, as: UTF8.self)
            if FileManager.default.fileExists(atPath: "/sys/class/net/\(device)/wireless") {
                expected.insert(.reachable(.wireless))
            } else {
                expected.insert(.reachable(text.contains("link/ether") ? .wired : .other))
            }
        }
        if expected.isEmpty { expected = [.unreachable] }
        let monitor = try LinuxReachabilityMonitor()
        defer { monitor.stop() }
        #expect(expected.contains(monitor.status), "ip route shows default routes over \(devices); the monitor says \(monitor.status)")
    }
}

/// Collects a process's output lines as they come.
final class Lines: Sendable {
    private let lines = Locked<[String]>([])
    private let partial = Locked("")

    func feed(_ data: Data) {
        let complete = partial.withLock { partial -> [String] in
            partial += String(decoding: data, as: UTF8.self)
            var parts = partial.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            partial = parts.removeLast()
            return parts
        }
        lines.withLock { $0 += complete }
    }

    var all: [String] { lines.withLock { $0 } }

    /// Waits up to `timeout` for a line equal to `line`.
    /// Generous: netlink events reach a helper process on a machine that may be loaded (or slowed
    /// by a sanitizer); a passing run waits only as long as it must.
    func waitFor(_ line: String, timeout: Duration = TestTiming.scaled(.seconds(60))) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if all.contains(line) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// Runs a command to completion; its output.
@discardableResult
func run(_ arguments: [String]) throws -> String {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else { throw CommandFailed(command: arguments.joined(separator: " "), output: text) }
    return text
}

struct CommandFailed: Error, CustomStringConvertible {
    let command: String
    let output: String
    var description: String { "`\(command)` failed: \(output)" }
}

func probeHelper() throws -> String {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL,
        Bundle.main.bundleURL.deletingLastPathComponent(),
    ].map { $0.appendingPathComponent("sluice-reachability-probe").path }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw CommandFailed(command: "find sluice-reachability-probe", output: "looked at \(candidates)")
    }
    return found
}
