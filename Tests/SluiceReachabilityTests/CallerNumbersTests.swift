import Foundation
import Sluice
import SluiceReachability
import SluiceTestSupport
import SluiceTesting
import Testing

/// SluiceReachability's public numbers driven with every hostile value of ``CallerNumbers``.
@Suite("Caller numbers: SluiceReachability", .timeLimit(.minutes(1)))
struct ReachabilityCallerNumbersTests {
    /// A wait of zero or less (or one the call's deadline cuts) fails at once; a long one ends when
    /// the network is back. `.offline` names the wait as given.
    @Test(.covers("ReachabilityGateMiddleware.Mode.waitForConnectivity(timeout:)"), arguments: CallerNumbers.durations)
    func gateWaits(_ timeout: Duration) async throws {
        let monitor = ManualMonitor(.unreachable)
        let transport = MockTransport.successful()
        let client = Client(transport: transport, middlewares: [ReachabilityGateMiddleware(monitor: monitor, mode: .waitForConnectivity(timeout: timeout))])
        if timeout <= .zero {
            await #expect {
                _ = try await client.get("https://api.example.com/x")
            } throws: { ($0 as? SluiceError)?.code == .offline && "\($0)".contains("stayed unreachable for") }
            #expect(transport.requests.isEmpty)
        } else if timeout >= .seconds(1) {
            let call = Task { try await client.get("https://api.example.com/x") }
            try await Wait.until("the gate waits") { monitor.subscriberCount > 0 }
            monitor.set(.reachable(.wired))
            #expect(try await call.value.status == .ok)
        }
    }

    /// Any port and any timeout: a probe of a closed port says unreachable, within the timeout
    /// held to 0 or more (a negative one made poll wait forever).
    @Test(.covers("HostProbe.init(host:port:timeout:) port", "HostProbe.init(host:port:timeout:) timeout"), arguments: CallerNumbers.durations)
    func probes(_ timeout: Duration) async throws {
        let refused = Loopback.RefusedPort()
        for port: UInt16 in [0, 1, UInt16(refused.port), .max] {
            let probe = HostProbe(host: "127.0.0.1", port: port, timeout: timeout)
            #expect(await probe.isReachable() == false)
        }
    }
}
