import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Speaks raw HTTP/1.1 to a MockWebServer over a plain socket, for input a real client won't send.
func rawExchange(port: Int, _ request: [UInt8]) throws -> String {
    guard let fd = Loopback.connect(port: port) else { throw POSIXError(.ECONNREFUSED) }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var reply = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        reply += buffer[0..<count]
    }
    return String(decoding: reply, as: UTF8.self)
}

@Suite("MockWebServer")
struct MockWebServerTests {
    @Test func anyPathGivesAURLInsteadOfATrap() throws {
        let server = try MockWebServer()
        #expect(server.url("/a b?q=\"x\"").absoluteString == "http://127.0.0.1:\(server.port)/a%20b?q=%22x%22")
        #expect(server.url("/plain?x=1").absoluteString == "http://127.0.0.1:\(server.port)/plain?x=1")
    }

    @Test func recordsMethodTargetHeadersAndAChunkedBody() throws {
        let server = try MockWebServer()
        server.enqueue(.init(status: 201, headers: [("X-Reply", "1")], body: "made"))
        let reply = try rawExchange(
            port: server.port,
            Array(
                ("POST /items?a=1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nX-Token:  abc \r\nConnection: close\r\n\r\n"
                    + "3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nTrailer: t\r\n\r\n").utf8))
        #expect(reply.hasPrefix("HTTP/1.1 201 Created\r\n"))
        #expect(reply.contains("X-Reply: 1\r\n"))
        #expect(reply.hasSuffix("\r\n\r\nmade"))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/items?a=1")
        #expect(request.header("x-token") == "abc")
        #expect(request.body == Data("abcdefg".utf8))
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET /x HTTP/9.9\r\n\r\n",
        "GET /x HTTP/1.1\r\nNo colon here\r\n\r\n",
        "POST /x HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
        "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ])
    func malformedRequestsGetA400AndAreNotRecorded(raw: String) throws {
        let server = try MockWebServer()
        let reply = try rawExchange(port: server.port, Array(raw.utf8))
        #expect(reply.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(server.requests.isEmpty)
    }

    @Test func anOversizedRequestHeadGetsA400() throws {
        let server = try MockWebServer()
        let huge = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 100_000) + "\r\n\r\n"
        #expect(try rawExchange(port: server.port, Array(huge.utf8)).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    }

    @Test func withoutAScriptItAnswers404() throws {
        let server = try MockWebServer()
        let reply = try rawExchange(port: server.port, Array("GET /none HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
        #expect(reply.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(reply.hasSuffix("no scripted response\n"))
    }

    @Test func aClientThatClosesMidResponseIsCountedAndAScriptedCutIsNot() async throws {
        let server = try MockWebServer()
        server.enqueue(
            MockWebServer.Response(status: 200, body: String(repeating: "x", count: 300)).with(throttle: 1, every: .milliseconds(50)),
            MockWebServer.Response(status: 200, body: "cut").with(fault: .disconnectBeforeResponse))
        // A client that reads the head and a byte, then closes, while the body still trickles.
        let fd = try #require(Loopback.connect(port: server.port))
        _ = Array("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 64)
        _ = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        try await Wait.until("the close was seen mid-response") { server.connectionsClosedByClient == 1 }
        // A response the script cuts is the server's close, not the client's.
        _ = try rawExchange(port: server.port, Array("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(server.requests.count == 2)
        #expect(server.connectionsClosedByClient == 1)
    }

    @Test func shutdownRefusesNewConnections() throws {
        let server = try MockWebServer()
        let port = server.port
        server.shutdown()
        #expect(throws: POSIXError.self) { try rawExchange(port: port, Array("GET / HTTP/1.1\r\n\r\n".utf8)) }
    }

    @Test func aServerNobodyHoldsStopsListening() async throws {
        // Its threads hold only its state, so dropping the last reference shuts it down (the accept
        // thread used to hold the server itself, and every test's server lived to the end of the run).
        var port = 0
        do {
            let server = try MockWebServer()
            server.enqueue(.init(status: 200, body: "up"))
            port = server.port
            #expect(try rawExchange(port: port, Array("GET / HTTP/1.1\r\nConnection: close\r\n\r\n".utf8)).hasSuffix("\r\n\r\nup"))
        }
        try await Wait.until("the dropped server's port refuses connections") {
            (try? rawExchange(port: port, Array("GET / HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))) == nil
        }
    }
}
