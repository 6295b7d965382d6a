import Foundation
import Sluice
import SluiceCurl
import SluiceGzip
import SluiceTestSupport
import SluiceTesting
import Testing

/// CurlTransport's public numbers driven with every hostile value of ``CallerNumbers`` against a
/// real server on 127.0.0.1: each is held to what curl can take, a limit below the body's size is
/// the typed error that names it, and nothing traps.
@Suite("Caller numbers: SluiceCurl", .timeLimit(.minutes(2)))
struct CurlCallerNumbersTests {
    /// One GET of a 4-byte body through a transport made with `change`.
    static func fetch(_ server: MockWebServer, _ change: (inout CurlTransport.Configuration) -> Void, request: ((inout HTTPRequest) -> Void)? = nil)
        async -> Result<HTTPResponse, any Error>
    {
        var configuration = CurlTransport.Configuration()
        change(&configuration)
        let client = Client(transport: CurlTransport(configuration: configuration))
        var sent = HTTPRequest(url: server.url("/x"))
        request?(&sent)
        return await Result { try await client.send(sent, timeout: .seconds(60)) }
    }

    static func server() throws -> MockWebServer {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, headers: [("Content-Type", "text/plain")], body: "body") }
        return server
    }

    /// Served, or (for a limit that allows less than a 4-byte body and its head) refused with the
    /// error naming the setting.
    static func expectServedOrRefused(_ outcome: Result<HTTPResponse, any Error>, naming setting: String, refused: Bool) {
        if refused {
            #expect { try outcome.get() } throws: { "\($0)".contains(setting) || ($0 as? SluiceError)?.code == .bodyTooLarge }
        } else {
            #expect((try? outcome.get())?.text == "body", "\(outcome)")
        }
    }

    @Test(
        .covers(
            "CurlTransport.Configuration.maxResponseBodySize", "HTTPRequest.maxResponseBodySize", "CurlTransport.Configuration.maxHeaderSectionSize",
            "CurlTransport.Configuration.maxTrailerCount", "CurlTransport.Configuration.maxTrailerSectionSize",
            "CurlTransport.Configuration.maxChunkExtensionSize", "CurlTransport.Configuration.eventThreads",
            "CurlTransport.Configuration.idleHandlePoolSize", "CurlTransport.Configuration.maxConnections",
            "CurlTransport.Configuration.maxConnectionsPerHost", "CurlTransport.Configuration.maxIdleConnections"),
        arguments: CallerNumbers.ints)
    func sizesAndCounts(_ number: Int) async throws {
        let server = try Self.server()
        Self.expectServedOrRefused(await Self.fetch(server) { $0.maxResponseBodySize = number }, naming: "limit of \(number) bytes", refused: number < 4)
        Self.expectServedOrRefused(
            await Self.fetch(server, { _ in }, request: { $0.maxResponseBodySize = number }), naming: "limit of \(number) bytes", refused: number < 4)
        Self.expectServedOrRefused(
            await Self.fetch(server) { $0.maxHeaderSectionSize = number }, naming: "CurlTransport.Configuration.maxHeaderSectionSize", refused: number < 64)
        for change: (inout CurlTransport.Configuration) -> Void in [
            { $0.maxTrailerCount = number }, { $0.maxTrailerSectionSize = number }, { $0.maxChunkExtensionSize = number },
            { $0.eventThreads = number }, { $0.idleHandlePoolSize = number }, { $0.maxConnections = number },
            { $0.maxConnectionsPerHost = number }, { $0.maxIdleConnections = number },
        ] {
            Self.expectServedOrRefused(await Self.fetch(server, change), naming: "", refused: false)
        }
        var threads = CurlTransport.Configuration()
        threads.eventThreads = number
        #expect((1...64).contains(CurlTransport(configuration: threads).configuration.eventThreads))
    }

    @Test(.covers("CurlTransport.Configuration.maxDecodedFileSize"), arguments: CallerNumbers.int64s)
    func decodedFileSize(_ size: Int64) async throws {
        let server = try Self.server()
        Self.expectServedOrRefused(await Self.fetch(server) { $0.maxDecodedFileSize = size }, naming: "", refused: false)
    }

    /// A body in `Transfer-Encoding: gzip` (which curl undoes): every ratio is held to at least 1,
    /// and the first MiB always passes, so 4 bytes are served whatever the ratio.
    @Test(.covers("CurlTransport.Configuration.maxDecodingRatio"), arguments: CallerNumbers.ints)
    func decodingRatio(_ ratio: Int) async throws {
        let server = try MockWebServer()
        let coded = try GzipCodec.compress(Data("body".utf8))
        server.setHandler { _ in
            .raw { index in
                index == 0 ? Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n".utf8) + coded : nil
            }
        }
        Self.expectServedOrRefused(await Self.fetch(server) { $0.maxDecodingRatio = ratio }, naming: "", refused: false)
    }

    @Test(
        .covers(
            "CurlTransport.Configuration.connectTimeout", "CurlTransport.Configuration.requestTimeout", "CurlTransport.Configuration.idleTimeout",
            "CurlTransport.Configuration.lowSpeedLimit"),
        arguments: CallerNumbers.durations)
    func timeouts(_ duration: Duration) async throws {
        let server = try Self.server()
        Self.expectServedOrRefused(await Self.fetch(server) { $0.connectTimeout = duration }, naming: "", refused: false)
        Self.expectServedOrRefused(await Self.fetch(server) { $0.idleTimeout = duration }, naming: "", refused: false)
        for bytes in CallerNumbers.ints where bytes <= 1 {
            Self.expectServedOrRefused(await Self.fetch(server) { $0.lowSpeedLimit = (bytes, duration) }, naming: "", refused: false)
        }
        // A request timeout of zero or less has passed: `.timedOut` at once; one of 100 years or more is none.
        let outcome = await Self.fetch(server) { $0.requestTimeout = duration }
        if duration <= .zero {
            #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .timedOut }
        } else if duration >= .seconds(1) {
            #expect((try? outcome.get())?.text == "body")
        }
        var timeouts = CurlTransport.Configuration()
        timeouts.connectTimeout = duration
        timeouts.requestTimeout = duration
        let transport = CurlTransport(configuration: timeouts)
        #expect(transport.configuration.connectTimeout == duration.clampedWait)
        #expect(transport.configuration.requestTimeout == (duration.isUnlimited ? nil : duration.clampedWait))
    }

    /// A curl error made by hand, with any code, prints and maps to a Sluice code.
    @Test(.covers("CurlError.init(code:summary:detail:) code"), arguments: CallerNumbers.ints)
    func curlErrors(_ code: Int) {
        let error = CurlError(code: code, summary: "s", detail: "d")
        #expect("\(error)".contains("s"))
        _ = error.sluiceCode
    }
}

/// Issue 44, item 3: the routing numbers a caller passes.
@Suite("Caller numbers: SluiceCurl routing", .timeLimit(.minutes(2)))
struct CurlRoutingCallerNumbersTests {
    /// Any DNS cache lifetime or Happy Eyeballs delay is held to what curl takes: the call is served.
    @Test(.covers("CurlTransport.Configuration.dnsCacheLifetime", "CurlTransport.Configuration.happyEyeballsDelay"), arguments: CallerNumbers.durations)
    func durations(_ duration: Duration) async throws {
        let server = try CurlCallerNumbersTests.server()
        for change: (inout CurlTransport.Configuration) -> Void in [{ $0.dnsCacheLifetime = duration }, { $0.happyEyeballsDelay = duration }] {
            #expect((try? await CurlCallerNumbersTests.fetch(server, change).get())?.text == "body")
        }
    }

    /// A port outside 1...65535 in any entry is `.misconfigured` naming it, nothing sent.
    @Test(
        .covers("CurlTransport.ResolveEntry.port", "CurlTransport.ConnectTo.port", "CurlTransport.ConnectTo.toPort"),
        arguments: CallerNumbers.ints + [65_535, 65_536])
    func ports(_ port: Int) async throws {
        let server = try CurlCallerNumbersTests.server()
        let changes: [(inout CurlTransport.Configuration) -> Void] = [
            { $0.resolve = [.init(host: "a.test", port: port, addresses: ["127.0.0.1"])] },
            { $0.connectTo = [.init(host: "a.test", port: port, toHost: "127.0.0.1", toPort: 80)] },
            { $0.connectTo = [.init(host: "a.test", port: 80, toHost: "127.0.0.1", toPort: port)] },
        ]
        for change in changes {
            let outcome = await CurlCallerNumbersTests.fetch(server, change)
            if (1...65_535).contains(port) {
                #expect((try? outcome.get())?.text == "body", "an entry for another host changes nothing: \(outcome)")
            } else {
                #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.message.hasSuffix("\(port) is not a TCP port (1...65535)") == true }
            }
        }
        #expect(server.requests.count == ((1...65_535).contains(port) ? 3 : 0))
    }
}
