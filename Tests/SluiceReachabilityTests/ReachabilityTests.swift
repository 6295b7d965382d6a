import Foundation
import Sluice
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
        } throws: { ($0 as? SluiceError)?.code == .offline && ($0 as? SluiceError)?.message.hasPrefix("the network stayed unreachable for") == true }
        #expect(harness.forwarded.isEmpty)
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

/// A real offline machine: a network namespace with no route, then a veth pair with a default route.
/// Needs root and iproute2 (`make test` installs it; CI runs as root).
@Suite("LinuxReachabilityMonitor in a network namespace", .timeLimit(.minutes(3)))
struct NetworkNamespaceTests {
    @Test func unreachableThenReachableThenUnreachableAndTheGateFailsFast() async throws {
        guard getuid() == 0 else {
            Issue.record("this test needs root to create a network namespace (CI runs as root)")
            return
        }
        let helper = try probeHelper()
        let tag = String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let namespace = "sluice-\(tag)", outside = "sva\(tag)", inside = "svb\(tag)"
        try run(["ip", "netns", "add", namespace])
        defer {
            _ = try? run(["ip", "link", "del", outside])
            _ = try? run(["ip", "netns", "del", namespace])
        }

        // Inside, with no route at all: unreachable, and the fail-fast gate answers offline at once.
        let gate = try run(["ip", "netns", "exec", namespace, helper, "gate", "http://192.0.2.10/x"])
        let words = gate.split(whereSeparator: { $0 == " " || $0 == "\n" })
        #expect(!gate.contains("transport-called"), "\(gate)")
        #expect(words.first == "offline", "\(gate)")
        #expect((words.dropFirst().first.flatMap { Int($0) } ?? 999) < 10, "the gate took \(gate)")

        let watcher = Process()
        let output = Pipe()
        let lines = Lines()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        watcher.arguments = ["ip", "netns", "exec", namespace, helper, "watch", "\(20 * TestTiming.scale)"]
        watcher.standardOutput = output
        output.fileHandleForReading.readabilityHandler = { lines.feed($0.availableData) }
        try watcher.run()
        defer {
            watcher.terminate()
            output.fileHandleForReading.readabilityHandler = nil
        }
        #expect(try await lines.waitFor("status unreachable"), "\(lines.all)")

        // A veth pair and a default route: reachable, over a wired (Ethernet-type) interface.
        try run(["ip", "link", "add", outside, "type", "veth", "peer", "name", inside])
        try run(["ip", "link", "set", inside, "netns", namespace])
        try run(["ip", "addr", "add", "10.231.\(Int.random(in: 1...250)).1/30", "dev", outside])
        try run(["ip", "link", "set", outside, "up"])
        try run(["ip", "-n", namespace, "link", "set", "lo", "up"])
        try run(["ip", "-n", namespace, "link", "set", inside, "up"])
        try run(["ip", "-n", namespace, "addr", "add", "10.77.0.2/24", "dev", inside])
        try run(["ip", "-n", namespace, "route", "add", "default", "via", "10.77.0.1", "dev", inside])
        #expect(try await lines.waitFor("status reachable(wired)"), "\(lines.all)")

        // The route goes: unreachable again, and the stream saw both changes.
        try run(["ip", "-n", namespace, "route", "del", "default"])
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(10))
        while lines.all.filter({ $0 == "status unreachable" }).count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(lines.all.filter { $0.hasPrefix("status ") } == ["status unreachable", "status reachable(wired)", "status unreachable"], "\(lines.all)")
    }
}
