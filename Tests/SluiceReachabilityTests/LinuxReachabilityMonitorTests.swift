import Foundation
import Sluice
import SluiceReachability
import SluiceTestSupport
import SluiceTesting
import Testing

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
        // In milliseconds: at once, not after a connect attempt (seconds). 14 ms was seen under
        // the full parallel run, so the bound is 200 ms, scaled.
        #expect((words.dropFirst().first.flatMap { Int($0) } ?? 99_999) < 200 * TestTiming.scale, "the gate took \(gate)")

        let watcher = Process()
        let output = Pipe()
        let lines = Lines()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        watcher.arguments = ["ip", "netns", "exec", namespace, helper, "watch", "\(20 * TestTiming.scale)"]
        watcher.standardOutput = output
        try watcher.run()
        _ = Blocking.readToEnd(output.fileHandleForReading) { lines.feed($0) }  // ends when the watcher does
        defer { watcher.terminate() }
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
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(60))
        while lines.all.filter({ $0 == "status unreachable" }).count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(lines.all.filter { $0.hasPrefix("status ") } == ["status unreachable", "status reachable(wired)", "status unreachable"], "\(lines.all)")
    }
}
