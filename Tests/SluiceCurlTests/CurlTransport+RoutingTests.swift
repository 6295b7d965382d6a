import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 44, item 3: names only the override resolves, connections sent elsewhere, the local
/// address, and the exact error for each entry curl could not take.
@Suite struct CurlTransportRoutingTests {
    static func server() throws -> MockWebServer {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "here") }
        return server
    }

    static func send(_ url: URL, _ change: (inout CurlTransport.Configuration) -> Void = { _ in }, request: (inout HTTPRequest) -> Void = { _ in })
        async throws -> HTTPResponse
    {
        var configuration = CurlTransport.Configuration()
        change(&configuration)
        let client = Client(transport: CurlTransport(configuration: configuration))
        var sent = HTTPRequest(url: url)
        request(&sent)
        return try await client.send(sent, timeout: .seconds(30))
    }

    /// A name no DNS knows resolves to the server; its Host field stays the name.
    @Test func aResolveEntryAnswersForAName() async throws {
        let server = try Self.server()
        let url = URL(string: "http://api.sluice.test:\(server.port)/x")!
        let response = try await Self.send(url) { $0.resolve = [.init(host: "api.sluice.test", port: server.port, addresses: ["127.0.0.1"])] }
        #expect(response.text == "here")
        #expect(server.requests.last?.header("Host") == "api.sluice.test:\(server.port)")
    }

    /// A connection for a host and port goes to another, for the transport or one request; the
    /// next request on the same handle, without its own, goes where its URL says (refused here).
    @Test func connectToSendsTheConnectionElsewhere() async throws {
        let server = try Self.server()
        let nowhere = Loopback.freePort()
        let url = URL(string: "http://localhost:\(nowhere)/x")!
        let elsewhere = CurlTransport.ConnectTo(host: "localhost", port: nowhere, toHost: "127.0.0.1", toPort: server.port)
        #expect(try await Self.send(url) { $0.connectTo = [elsewhere] }.text == "here")
        #expect(server.requests.last?.header("Host") == "localhost:\(nowhere)")

        let client = Client(transport: CurlTransport())
        var own = HTTPRequest(url: url)
        own.connectTo = [elsewhere]
        #expect(try await client.send(own, timeout: .seconds(30)).text == "here")
        let error = await #expect(throws: SluiceError.self) { try await client.send(HTTPRequest(url: url), timeout: .seconds(30)) }
        #expect(error?.code == .cannotConnect, "the request's own list is not left on the handle: \(String(describing: error))")
        #expect(server.requests.count == 2)
    }

    /// The local address: the loopback one works; an interface that does not exist fails the call.
    @Test func theLocalAddressIsWhereConnectionsGoOutFrom() async throws {
        let server = try Self.server()
        #expect(try await Self.send(server.url("/x")) { $0.localInterface = "host!127.0.0.1" }.text == "here")
        let error = await #expect(throws: SluiceError.self) {
            try await Self.send(server.url("/x")) { $0.localInterface = "if!nosuch0" }
        }
        #expect(error?.code == .cannotConnect, "\(String(describing: error))")
        #expect(error?.message == "GET \(server.url("/x")): Couldn't bind to interface 'nosuch0'")
        #expect(server.requests.count == 1)
    }

    /// Each entry curl could not take fails every request with `.misconfigured` naming it,
    /// before anything is sent.
    @Test(
        arguments: [
            (
                CurlTransport.Configuration.resolveEntry(host: "api.sluice.test", port: 80, addresses: ["not-an-ip"]),
                #"CurlTransport.Configuration.resolve: "not-an-ip" is not an IPv4 or IPv6 address"#
            ),
            (.resolveEntry(host: "bad host", port: 80, addresses: ["127.0.0.1"]), #"CurlTransport.Configuration.resolve: "bad host" is not a host name"#),
            (.resolveEntry(host: "api.sluice.test", port: 0, addresses: ["127.0.0.1"]), "CurlTransport.Configuration.resolve: 0 is not a TCP port (1...65535)"),
            (.resolveEntry(host: "api.sluice.test", port: 80, addresses: []), "CurlTransport.Configuration.resolve: api.sluice.test:80 has no address"),
            (
                .connectToEntry(host: "a.test", port: 80, toHost: "b\r\nX: 1", toPort: 80),
                #"CurlTransport.Configuration.connectTo: "b\r\nX: 1" is not a host name"#
            ),
            (
                .connectToEntry(host: "a.test", port: 80, toHost: "127.0.0.1", toPort: 65_536),
                "CurlTransport.Configuration.connectTo: 65536 is not a TCP port (1...65535)"
            ),
        ] as [(CurlTransport.Configuration, String)])
    func anEntryCurlCannotTakeIsRefused(configuration: CurlTransport.Configuration, message: String) async throws {
        let server = try Self.server()
        let client = Client(transport: CurlTransport(configuration: configuration))
        let error = await #expect(throws: SluiceError.self) { try await client.send(HTTPRequest(url: server.url("/x")), timeout: .seconds(30)) }
        #expect(error?.code == .misconfigured)
        #expect(error?.message == message)
        #expect(server.requests.isEmpty)
    }

    /// A request's own entry is checked the same way.
    @Test func aRequestsOwnEntryIsChecked() async throws {
        let server = try Self.server()
        let error = await #expect(throws: SluiceError.self) {
            try await Self.send(server.url("/x"), request: { $0.connectTo = [.init(host: "127.0.0.1", port: -1, toHost: "127.0.0.1", toPort: 80)] })
        }
        #expect(error?.message == "request.connectTo: -1 is not a TCP port (1...65535)")
        #expect(server.requests.isEmpty)
    }
}

extension CurlTransport.Configuration {
    static func resolveEntry(host: String, port: Int, addresses: [String]) -> Self {
        var configuration = Self()
        configuration.resolve = [.init(host: host, port: port, addresses: addresses)]
        return configuration
    }

    static func connectToEntry(host: String, port: Int, toHost: String, toPort: Int) -> Self {
        var configuration = Self()
        configuration.connectTo = [.init(host: host, port: port, toHost: toHost, toPort: toPort)]
        return configuration
    }
}

/// Issue 44, item 3: names resolved by a DNS-over-HTTPS server of the tests' own
/// (`Tests/Servers/doh.py`, dnspython over TLS with the test CA's certificate for 127.0.0.1).
/// curl asks A and AAAA at once, so a test waits for the question it names, in either order.
@Suite struct CurlTransportDNSOverHTTPSTests {
    static func doh(_ names: [String]) async throws -> (ScriptServer, ca: String) {
        let ca = try InteropServers.value("SLUICE_NGINX_CA")
        let folder = URL(fileURLWithPath: ca).deletingLastPathComponent()
        let server = try await ScriptServer.start(
            "doh.py", arguments: [folder.appendingPathComponent("server.pem").path, folder.appendingPathComponent("server.key").path] + names)
        return (server, ca)
    }

    @Test func aNameOnlyTheDoHServerKnowsResolvesThroughIt() async throws {
        let target = try CurlTransportRoutingTests.server()
        let (doh, ca) = try await Self.doh(["api.sluice.test=127.0.0.1"])
        let url = URL(string: "http://api.sluice.test:\(target.port)/x")!
        let response = try await CurlTransportRoutingTests.send(url) {
            $0.dnsOverHTTPS = URL(string: "https://127.0.0.1:\(doh.port)/dns-query")
            $0.tls.caFile = ca
        }
        #expect(response.text == "here")
        #expect(target.requests.last?.header("Host") == "api.sluice.test:\(target.port)")
        try await Wait.until("the DoH server was asked api.sluice.test. A") { doh.lines.contains("api.sluice.test. A") }
    }

    @Test func aNameTheDoHServerDoesNotKnowIsADNSFailure() async throws {
        let (doh, ca) = try await Self.doh(["api.sluice.test=127.0.0.1"])
        let error = await #expect(throws: SluiceError.self) {
            try await CurlTransportRoutingTests.send(URL(string: "http://nowhere.sluice.test/x")!) {
                $0.dnsOverHTTPS = URL(string: "https://127.0.0.1:\(doh.port)/dns-query")
                $0.tls.caFile = ca
            }
        }
        #expect(error?.code == .dnsFailure)
        #expect(
            error?.message == "GET http://nowhere.sluice.test/x: Couldn't resolve host name through the DNS-over-HTTPS server https://127.0.0.1:\(doh.port)")
        try await Wait.until("the DoH server was asked nowhere.sluice.test. A") { doh.lines.contains("nowhere.sluice.test. A") }
    }

    /// Issue 53, item 4 (THREATS §16): the lookups curl makes for DNS over HTTPS inherit verbose
    /// (request heads recorded, a streamed request body watched) but not Sluice's debug callback;
    /// about 50 lines of trace, the DoH URL's `Authorization: Basic` among them, went to stderr.
    /// In a process of its own, nothing reaches its stderr.
    @Test func nothingCurlPrintsForADoHLookupReachesStandardError() async throws {
        let target = try CurlTransportRoutingTests.server()
        let (doh, ca) = try await Self.doh(["api.sluice.test=127.0.0.1"])
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-transfer-probe")
        process.arguments = ["doh", "http://api.sluice.test:\(target.port)/x", "https://probe:s3cr3t-doh@127.0.0.1:\(doh.port)/dns-query"]
        process.environment = ProcessInfo.processInfo.environment.merging(["SLUICE_PROBE_CA": ca]) { $1 }
        let errors = FileManager.default.temporaryDirectory.appending(path: "sluice-doh-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        let (output, status) = try await Blocking.output(of: process)
        let printed = try String(contentsOf: errors, encoding: .utf8)
        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self) == #"{"status": 200, "postStatus": 200}"# + "\n")
        #expect(printed.isEmpty, "stderr: \(printed.prefix(400))")
        try await Wait.until("the DoH server was asked api.sluice.test. A") { doh.lines.contains("api.sluice.test. A") }
        #expect(target.requests.map(\.method) == ["GET", "POST"])
    }

    @Test func aDoHServerWhoseCertificateIsNotTrustedResolvesNothing() async throws {
        let (doh, _) = try await Self.doh(["api.sluice.test=127.0.0.1"])
        let error = await #expect(throws: SluiceError.self) {
            try await CurlTransportRoutingTests.send(URL(string: "http://api.sluice.test/x")!) {
                $0.dnsOverHTTPS = URL(string: "https://127.0.0.1:\(doh.port)/dns-query")
            }
        }
        #expect(error?.code == .dnsFailure)
        #expect(error?.message == "GET http://api.sluice.test/x: Couldn't resolve host name through the DNS-over-HTTPS server https://127.0.0.1:\(doh.port)")
        #expect(doh.lines.isEmpty, "no question reached a server curl could not verify")
    }

    @Test func aDoHURLThatIsNotHTTPSIsRefused() async throws {
        let error = await #expect(throws: SluiceError.self) {
            try await CurlTransportRoutingTests.send(URL(string: "http://127.0.0.1:1/x")!) {
                $0.dnsOverHTTPS = URL(string: "http://user:secret@dns.example/dns-query")
            }
        }
        #expect(error?.code == .misconfigured)
        #expect(
            error?.message
                == "CurlTransport.Configuration.dnsOverHTTPS: http://dns.example is not an https URL with a host (DNS over HTTPS is asked over TLS only)")
    }
}
