import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("CurlTransport against MockWebServer")
struct CurlTransportTests {
    let server: MockWebServer
    let transport: CurlTransport

    init() throws {
        server = try MockWebServer()
        transport = CurlTransport()
    }

    func send(_ request: HTTPRequest, _ transport: CurlTransport? = nil, context: RequestContext = RequestContext()) async throws -> HTTPResponse {
        try await (transport ?? self.transport).send(request, context: context)
    }

    func error(_ request: HTTPRequest, _ transport: CurlTransport? = nil, context: RequestContext = RequestContext()) async throws -> SluiceError {
        do {
            let response = try await send(request, transport, context: context)
            Issue.record("expected an error, got \(response)")
            throw CancellationError()
        } catch let error as SluiceError {
            return error
        }
    }

    // MARK: Basics

    @Test func sendsMethodHeadersAndBodyAndReadsTheResponse() async throws {
        server.enqueue(.init(status: 201, headers: [("Content-Type", "text/plain"), ("X-Reply", "yes")], body: "created"))
        var request = HTTPRequest(method: .post, url: server.url("/items?x=1"), body: .bytes(Data("hello".utf8)))
        try request.headers.append(name: "X-Trace", value: "abc")
        try request.headers.append(name: "X-Empty", value: "")
        let response = try await send(request)
        #expect(response.status == .created)
        #expect(response.status.reasonPhrase == "Created")
        #expect(response.text == "created")
        #expect(response.headers["x-reply"] == "yes")
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.target == "/items?x=1")
        #expect(received.body == Data("hello".utf8))
        #expect(received.header("X-Trace") == "abc")
        #expect(received.header("X-Empty") == "")
        #expect(received.header("Expect") == nil)
        #expect(received.header("Content-Length") == "5")
    }

    @Test(arguments: [HTTPMethod.get, .head, .put, .patch, .delete, .options, HTTPMethod(rawValue: "PROPFIND")!])
    func everyMethodIsSentAsItself(method: HTTPMethod) async throws {
        server.enqueue(.init(status: 200, body: "ok"))
        let response = try await send(HTTPRequest(method: method, url: server.url("/m")))
        #expect(server.requests.first?.method == method.rawValue)
        #expect(response.body == (method == .head ? Data() : Data("ok".utf8)))
    }

    @Test func putAndPatchCarryBodies() async throws {
        server.setHandler { _ in .init(status: 204) }
        _ = try await send(HTTPRequest(method: .put, url: server.url("/p"), body: .bytes(Data("put-body".utf8))))
        _ = try await send(HTTPRequest(method: .patch, url: server.url("/p"), body: .bytes(Data("patch-body".utf8))))
        #expect(server.requests.map(\.method) == ["PUT", "PATCH"])
        #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["put-body", "patch-body"])
    }

    @Test func keepAliveReusesOneConnection() async throws {
        server.setHandler { _ in .init(status: 200, body: "x") }
        for _ in 0..<5 { _ = try await send(HTTPRequest(url: server.url("/k"))) }
        #expect(server.requests.count == 5)
        #expect(server.connectionCount == 1)
    }

    @Test func chunkedAndLargeBodiesArriveWhole() async throws {
        let large = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.enqueue(.init(status: 200, body: Data(large.prefix(100_000)), chunkSize: 777))
        server.enqueue(.init(status: 200, body: large))
        #expect(try await send(HTTPRequest(url: server.url("/chunked"))).body == large.prefix(100_000))
        #expect(try await send(HTTPRequest(url: server.url("/large"))).body == large)
    }

    @Test func metricsAreFilled() async throws {
        server.enqueue(.init(status: 200, body: Data(count: 3000)))
        let metrics = try #require(try await send(HTTPRequest(method: .post, url: server.url("/m"), body: .bytes(Data(count: 10)))).metrics)
        #expect(metrics.total > .zero)
        #expect(metrics.connect != nil)
        #expect(metrics.firstByte != nil)
        #expect(metrics.bytesReceived == 3000)
        #expect(metrics.bytesSent == 10)
        #expect(metrics.httpVersion == "1.1")
        #expect(metrics.remoteAddress == "127.0.0.1")
        #expect(metrics.reusedConnection == false)
        #expect(metrics.tlsHandshake == nil)
    }

    /// 2,000 requests, 16 at a time, over 16 connections: each is kept for the next request
    /// (curl's default connection cache closed and reopened 19 more here).
    @Test func sixteenInFlightKeepTheirSixteenConnections() async throws {
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let transport = CurlTransport()
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var ok = 0
                    for index in stride(from: worker, to: 2_000, by: 16) {
                        let response = try await transport.send(HTTPRequest(url: server.url("/n/\(index)")), context: RequestContext())
                        if response.text == "ok" { ok += 1 }
                    }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 2_000)
        #expect(server.connectionCount <= 16, "\(server.connectionCount) connections")
        #expect(makeTransport { $0.maxIdleConnections = 0 }.configuration.maxIdleConnections == 0)
    }

    // MARK: User-Agent

    /// The configured user agent goes in the request's header list, once, unless the request
    /// names its own or leaves the field out.
    @Test func theUserAgentIsSentOnceUnlessTheRequestHasItsOwn() async throws {
        for _ in 0..<4 { server.enqueue(.init(status: 200, body: "ok")) }
        _ = try await send(HTTPRequest(url: server.url("/bare")))
        var withFields = HTTPRequest(url: server.url("/fields"))
        try withFields.headers.append(name: "X-Trace", value: "abc")
        _ = try await send(withFields)
        var own = HTTPRequest(method: .put, url: server.url("/own"), body: .bytes(Data("x".utf8)))
        try own.headers.append(name: "user-agent", value: "mine/1.0")
        _ = try await send(own)
        _ = try await send(HTTPRequest(method: .post, url: server.url("/body"), body: .bytes(Data("x".utf8))))
        let agents = server.requests.map { request in request.headers.filter { $0.name.lowercased() == "user-agent" }.map(\.value) }
        #expect(agents == [[CurlTransport.defaultUserAgent], [CurlTransport.defaultUserAgent], ["mine/1.0"], [CurlTransport.defaultUserAgent]])
        #expect(server.requests.allSatisfy { $0.header("Expect") == nil })
    }

    /// curl asks for `100-continue` before a large body (over 1 KiB in curl 7.x, 1 MiB in 8.x)
    /// unless told not to: never asked, with or without fields of the request's own.
    @Test func aLargeBodyIsSentWithoutAskingToContinue() async throws {
        let body = Data(repeating: 0x61, count: 2 << 20)
        for _ in 0..<2 { server.enqueue(.init(status: 200, body: "ok")) }
        _ = try await send(HTTPRequest(method: .put, url: server.url("/bare"), body: .bytes(body)))
        var withFields = HTTPRequest(method: .post, url: server.url("/fields"), body: .bytes(body))
        try withFields.headers.append(name: "X-Trace", value: "abc")
        _ = try await send(withFields)
        #expect(server.requests.map { $0.header("Expect") } == [nil, nil])
        #expect(server.requests.map(\.bodyLength) == [body.count, body.count])
    }

    @Test func noUserAgentWhenTheConfigurationHasNoneOrLeavesItOut() async throws {
        server.enqueue(.init(status: 200, body: "ok"))
        server.enqueue(.init(status: 200, body: "ok"))
        _ = try await send(HTTPRequest(url: server.url("/none")), makeTransport { $0.userAgent = nil })
        _ = try await send(HTTPRequest(url: server.url("/left-out")), makeTransport { $0.omittedDefaultFields = ["User-Agent"] })
        #expect(server.requests.map { $0.header("User-Agent") } == [nil, nil])
    }

    /// Through a proxy, curl's own option carries the user agent (it also names the client on a
    /// CONNECT): the proxy sees it once.
    @Test func aProxiedRequestCarriesTheUserAgentOnce() async throws {
        server.enqueue(.init(status: 200, body: "relayed"))
        let proxied = makeTransport {
            $0.proxy = server.baseURL.absoluteString; $0.userAgent = "proxied/2.0"
        }
        let response = try await send(HTTPRequest(url: URL(string: "http://origin.invalid/p")!), proxied)
        #expect(response.text == "relayed")
        let received = try #require(server.requests.first)
        #expect(received.target == "http://origin.invalid/p")
        #expect(received.headers.filter { $0.name.lowercased() == "user-agent" }.map(\.value) == ["proxied/2.0"])
    }

    /// A user agent with a line break would write a field of its own into every request: refused
    /// before anything is sent, with or without a proxy.
    @Test(arguments: [false, true])
    func aUserAgentNoFieldValueMayHoldIsRefused(throughProxy: Bool) async throws {
        let transport = makeTransport {
            $0.userAgent = "agent\r\nX-Injected: 1"
            if throughProxy { $0.proxy = server.baseURL.absoluteString }
        }
        let error = try await error(HTTPRequest(url: server.url("/ua")), transport)
        #expect(error.code == .invalidHeader)
        #expect(
            error.message
                == #"CurlTransport.Configuration.userAgent is not a valid field value: value of header "User-Agent" has CR (0x0D) at byte 5; CR, LF and NUL are never allowed in header fields"#
        )
        #expect(server.requests.isEmpty)
    }

    // MARK: Request bodies

    @Test func fileBodiesAreStreamedFromDisk() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-upload-\(UUID().uuidString)")
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        server.enqueue(.init(status: 200))
        _ = try await send(HTTPRequest(method: .put, url: server.url("/upload"), body: .file(file)))
        #expect(server.requests.first?.body == content)
        #expect(server.requests.first?.header("Content-Length") == "300000")
    }

    @Test func streamBodiesOfUnknownLengthAreChunked() async throws {
        server.enqueue(.init(status: 200))
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            Task {
                for index in 0..<20 {
                    continuation.yield(Data(repeating: UInt8(index), count: 5000))
                    try? await Task.sleep(for: .milliseconds(1))
                }
                continuation.finish()
            }
        }
        _ = try await send(HTTPRequest(method: .post, url: server.url("/stream"), body: .stream(.oneShot(length: nil, chunks))))
        let received = try #require(server.requests.first)
        #expect(received.header("Transfer-Encoding") == "chunked")
        #expect(received.body == Data((0..<20).flatMap { Array(repeating: UInt8($0), count: 5000) }))
    }

    @Test func aFailingStreamBodyIsAnInvalidBody() async throws {
        struct Broken: Error {}
        server.setHandler { _ in .init(status: 200) }
        let chunks = AsyncThrowingStream<Data, any Error> {
            $0.yield(Data(count: 10)); $0.finish(throwing: Broken())
        }
        let error = try await error(HTTPRequest(method: .post, url: server.url("/s"), body: .stream(.oneShot(length: nil, chunks))))
        #expect(error.code == .invalidBody)
        #expect(error.message == "the request body stream failed: Broken()")
    }

    @Test func aMissingBodyFileIsAnInvalidBody() async throws {
        let error = try await error(HTTPRequest(method: .put, url: server.url("/u"), body: .file(URL(fileURLWithPath: "/nonexistent/sluice-file"))))
        #expect(error.code == .invalidBody)
        #expect(error.message == "cannot open the body file /nonexistent/sluice-file: No such file or directory")
        #expect(server.requests.isEmpty)
    }

    @Test func headWithABodyIsRefused() async throws {
        let error = try await error(HTTPRequest(method: .head, url: server.url("/h"), body: .bytes(Data("x".utf8))))
        #expect(error.code == .invalidBody)
        #expect(error.message == "a HEAD request cannot carry a body")
    }

    // MARK: Failures

    @Test func onlyHTTPAndHTTPSAreSent() async throws {
        let error = try await error(HTTPRequest(url: URL(string: "ftp://127.0.0.1/file")!))
        #expect(error.code == .invalidURL)
        #expect(error.message == #"ftp://127.0.0.1/file has scheme "ftp"; only http and https are allowed"#)
    }

    @Test(arguments: ["\r\n", "\r", "\n", "\u{0}"])
    func controlCharactersInAURLNeverReachTheWire(_ characters: String) async throws {
        server.setHandler { _ in MockWebServer.Response(status: 200) }
        // Foundation percent-encodes them when the URL is made (a raw CR or LF in the host makes no
        // URL at all), and so does the client's path joining: the request line stays one line.
        let direct = try #require(URL(string: server.url("/a").absoluteString + characters + "Injected: 1?q=" + characters))
        let joined = try URLJoin.join("b" + characters + "Injected: 1", to: server.url("/"))
        #expect(URL(string: "http://127.0.0.1" + characters + "/x") == nil)
        for url in [direct, joined] {
            #expect(try await send(HTTPRequest(url: url)).status == .ok)
        }
        let requests = server.requests
        #expect(requests.count == 2)
        for request in requests {
            #expect(!request.target.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }, "\(request.target)")
            #expect(request.header("Injected") == nil)
        }
        let encoded = characters.unicodeScalars.map { String(format: "%%%02X", $0.value) }.joined()
        #expect(requests.first?.target == "/a\(encoded)Injected:%201?q=\(encoded)")
    }

    @Test func aRefusedConnectionIsCannotConnect() async throws {
        let closed = try MockWebServer()
        let url = closed.url("/")
        closed.shutdown()
        let error = try await error(HTTPRequest(url: url))
        #expect(error.code == .cannotConnect)
        let curl = try #require(error.underlying as? CurlError)
        #expect(curl.code == 7)
        #expect(error.message.contains("Connection refused") || error.message.contains("Couldn't connect"))
    }

    @Test func aSilentServerEndsAtTheIdleTimeout() async throws {
        #expect(CurlTransport.Configuration().idleTimeout == .seconds(60))
        server.enqueue(.init(status: 200, body: "late").with(headersDelay: .seconds(120)))
        let idle = makeTransport { $0.idleTimeout = .seconds(1) }  // no request timeout at all
        let start = ContinuousClock.now
        let error = try await error(HTTPRequest(url: server.url("/silent")), idle)
        #expect(error.code == .timedOut)
        #expect((error.underlying as? CurlError)?.code == 28)
        #expect(error.message.contains("Less than 1 bytes/sec transferred the last 1 seconds"), "\(error.message)")
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(20)))
    }

    @Test func aSlowServerTimesOut() async throws {
        server.enqueue(.init(status: 200, body: "late").with(headersDelay: .seconds(120)))
        let slow = makeTransport { $0.requestTimeout = .milliseconds(300) }
        let start = ContinuousClock.now
        let error = try await error(HTTPRequest(url: server.url("/slow")), slow)
        #expect(error.code == .timedOut)
        #expect((error.underlying as? CurlError)?.code == 28)
        // Long before the server's 120 s: the 300 ms limit ended it (the margin is for a loaded
        // machine: 5 s was seen under the full parallel run).
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(20)))
    }

    @Test func theContextDeadlineIsHonoured() async throws {
        server.enqueue(.init(status: 200, body: "late").with(headersDelay: .seconds(3)))
        let error = try await error(HTTPRequest(url: server.url("/slow")), context: RequestContext(deadline: .now + .milliseconds(300)))
        #expect(error.code == .timedOut)
    }

    @Test func aPassedDeadlineFailsBeforeSending() async throws {
        let error = try await error(HTTPRequest(url: server.url("/never")), context: RequestContext(deadline: .now - .seconds(1)))
        #expect(error.code == .timedOut)
        #expect(error.message == "the deadline passed before GET \(server.url("/never").absoluteString) was sent")
        #expect(server.requests.isEmpty)
    }

    @Test func aTrickleBelowTheLowSpeedLimitTimesOut() async throws {
        server.enqueue(.init(status: 200, body: Data(count: 1000)).with(throttle: 1, every: .milliseconds(200)))
        let strict = makeTransport { $0.lowSpeedLimit = (bytesPerSecond: 1000, duration: .seconds(1)) }
        let error = try await error(HTTPRequest(url: server.url("/trickle")), strict)
        #expect(error.code == .timedOut, "\(error)")
    }

    @Test func aConnectionDroppedBeforeTheResponseIsConnectionLost() async throws {
        server.enqueue(.init(status: 200, body: "x").with(fault: .disconnectBeforeResponse))
        let error = try await error(HTTPRequest(url: server.url("/drop")))
        #expect(error.code == .connectionLost)
        #expect((error.underlying as? CurlError)?.code == 52)
    }

    @Test func aConnectionDroppedMidBodyIsConnectionLost() async throws {
        server.enqueue(.init(status: 200, body: Data(count: 10_000)).with(fault: .disconnectAfterBodyBytes(4000)))
        let error = try await error(HTTPRequest(url: server.url("/mid")))
        #expect(error.code == .connectionLost)
        #expect((error.underlying as? CurlError)?.code == 18)
    }

    @Test func aTruncatedChunkedBodyIsConnectionLost() async throws {
        server.enqueue(.init(status: 200, body: Data(count: 10_000), chunkSize: 1000).with(fault: .disconnectAfterBodyBytes(3500)))
        let error = try await error(HTTPRequest(url: server.url("/chunks")))
        #expect(error.code == .connectionLost)
    }

    @Test(arguments: ["HTTP/1.1 abc OK", "HTTP/1.1 2000 Huge", "garbage"])
    func aBadStatusLineIsAnInvalidResponse(line: String) async throws {
        server.enqueue(.init(status: 200, body: "x").with(rawStatusLine: line))
        let error = try await error(HTTPRequest(url: server.url("/bad")))
        #expect(error.code == .invalidResponse, "\(error)")
    }

    @Test func anInvalidResponseHeaderIsAnInvalidResponse() async throws {
        server.enqueue(.init(status: 200, headers: [("Bad Name", "x")], body: "x"))
        let error = try await error(HTTPRequest(url: server.url("/h")))
        #expect(error.code == .invalidResponse)
        #expect(
            error.message.hasSuffix(
                #"got an invalid header: header name "Bad Name" has ' ' (0x20) at byte 3, which is not a token character (RFC 9110 §5.6.2)"#))
    }

    @Test func trailersOfAChunkedBodyAreKeptApartFromTheHeaders() async throws {
        server.enqueue(
            .init(status: 200, headers: [("Trailer", "X-Checksum")], body: Data("abcdef".utf8), chunkSize: 4)
                .with(trailers: [("X-Checksum", "sha256=1")]))
        let response = try await send(HTTPRequest(url: server.url("/trailers")))
        #expect(response.body == Data("abcdef".utf8))
        #expect(response.headers["Trailer"] == "X-Checksum")
        // Trailers are kept apart (RFC 9110 §6.5.1): never merged into the header section.
        #expect(response.headers["x-checksum"] == nil)
        #expect(response.trailers["x-checksum"] == "sha256=1")
        #expect(response.trailers.count == 1)
    }

    @Test func anInvalidTrailerIsAnInvalidResponse() async throws {
        server.enqueue(.init(status: 200, body: Data("abcdef".utf8), chunkSize: 4).with(trailers: [("Bad Trailer", "1")]))
        let error = try await error(HTTPRequest(url: server.url("/trailers")))
        #expect(error.code == .invalidResponse)
        #expect(
            error.message.hasSuffix(
                #"got an invalid trailer: header name "Bad Trailer" has ' ' (0x20) at byte 3, which is not a token character (RFC 9110 §5.6.2)"#))
    }

    @Test func aHeaderLineWithoutAColonIsAnInvalidResponse() async throws {
        // The raw status line carries a second, colon-less line after it. libcurl refuses it
        // first ("Header without colon", CURLE_WEIRD_SERVER_REPLY); HTTPFields(parsing:) would too.
        server.enqueue(.init(status: 200, body: "x").with(rawStatusLine: "HTTP/1.1 200 OK\r\nX-Fine: 1\r\nno colon at all"))
        let error = try await error(HTTPRequest(url: server.url("/h")))
        #expect(error.code == .invalidResponse)
        #expect(error.message.lowercased().contains("colon"), "\(error)")
    }

    @Test func foldedHeaderLinesAreJoined() async throws {
        server.enqueue(.init(status: 200, headers: [("X-Folded", "first\r\n\tsecond"), ("X-After", "1")], body: "x"))
        let response = try await send(HTTPRequest(url: server.url("/fold")))
        #expect(response.headers["X-Folded"] == "first second")
        #expect(response.headers["X-After"] == "1")
    }

    @Test func aBodyOverTheLimitIsBodyTooLarge() async throws {
        server.enqueue(.init(status: 200, body: Data(count: 5000)))
        server.enqueue(.init(status: 200, body: Data(count: 5000)))
        let small = makeTransport { $0.maxResponseBodySize = 4096 }
        let error = try await error(HTTPRequest(url: server.url("/big")), small)
        #expect(error.code == .bodyTooLarge)
        #expect(error.message == "the response body of GET \(server.url("/big").absoluteString) is larger than the limit of 4096 bytes")
        var allowed = HTTPRequest(url: server.url("/big"))
        allowed.maxResponseBodySize = 10_000
        #expect(try await send(allowed, small).body.count == 5000)
    }

    @Test func anUnknownTransferCodingIsNamedInTheError() async throws {
        server.enqueue(.init(status: 200, headers: [("Transfer-Encoding", "foo, chunked")], body: Data("5\r\nhello\r\n0\r\n\r\n".utf8), closesConnection: true))
        let error = try await error(HTTPRequest(url: server.url("/coded")))
        #expect(error.code == .invalidResponse)
        #expect(
            error.message
                == "GET \(server.url("/coded").absoluteString): the response's Transfer-Encoding \"foo\" is not one libcurl can decode "
                + "(chunked, gzip, deflate, br, zstd), so its body cannot be read")
    }

    // MARK: Sending a body again

    @Test(arguments: ["bytes", "file"])
    func aBodyIsRewoundWhenAReusedConnectionTurnsOutClosed(kind: String) async throws {
        let transport = CurlTransport()
        let payload = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-rewind-\(UUID().uuidString)")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // The second request arrives on the kept-alive connection, which the server then closes
        // without an answer: curl sends it again on a new connection, body and all.
        server.enqueue(
            .init(status: 200, body: "first"), MockWebServer.Response(status: 200).with(fault: .disconnectBeforeResponse),
            .init(status: 201, body: "stored"))
        _ = try await send(HTTPRequest(url: server.url("/first")), transport)
        let body: HTTPBody = kind == "bytes" ? .bytes(payload) : .file(file)
        let response = try await send(HTTPRequest(method: .put, url: server.url("/doc"), body: body), transport)
        #expect(response.status.code == 201)
        let puts = server.requests.filter { $0.method == "PUT" }
        #expect(puts.count == 2)
        #expect(puts.allSatisfy { $0.body == payload })
        #expect(Set(puts.map(\.connection)).count == 2)
    }

    @Test func aOneShotStreamThatMustBeSentAgainIsConnectionLostSayingWhy() async throws {
        let transport = CurlTransport()
        server.enqueue(
            .init(status: 200, body: "first"), MockWebServer.Response(status: 200).with(fault: .disconnectBeforeResponse),
            .init(status: 201, body: "stored"))
        _ = try await send(HTTPRequest(url: server.url("/first")), transport)
        let stream = HTTPBody.Stream.oneShot(
            length: 5,
            AsyncThrowingStream {
                $0.yield(Data("hello".utf8)); $0.finish()
            })
        let error = try await error(HTTPRequest(method: .put, url: server.url("/doc"), body: .stream(stream)), transport)
        #expect(error.code == .connectionLost)
        #expect(
            error.message
                == "PUT \(server.url("/doc").absoluteString): the connection closed before an answer, and the body is a one-shot stream "
                + "that cannot be sent again; make it with HTTPBody.Stream.replayable")
    }

    // MARK: Files, progress, cancellation

    @Test func responseBodiesCanGoToAFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-download-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.enqueue(.init(status: 200, body: content))
        var request = HTTPRequest(url: server.url("/file"))
        request.responseBodyFile = file
        let response = try await send(request)
        #expect(response.body.isEmpty)
        #expect(response.bodyFile == file)
        #expect(try Data(contentsOf: file) == content)
    }

    @Test func anUnwritableDownloadFileIsWriteFailed() async throws {
        server.setHandler { _ in .init(status: 200, body: "x") }
        var request = HTTPRequest(url: server.url("/file"))
        request.responseBodyFile = URL(fileURLWithPath: "/nonexistent/dir/out.bin")
        let error = try await error(request)
        #expect(error.code == .writeFailed)
        #expect(error.message == "cannot open /nonexistent/dir/out.bin to write the response body: No such file or directory")
    }

    @Test func progressIsReportedBothWays() async throws {
        server.enqueue(.init(status: 200, body: Data(count: 400_000)))
        let reports = Locked<[TransferProgress]>([])
        var context = RequestContext()
        context.progress = { progress in reports.withLock { $0.append(progress) } }
        _ = try await send(HTTPRequest(method: .post, url: server.url("/p"), body: .bytes(Data(count: 300_000))), context: context)
        let all = reports.withLock { $0 }
        let uploads = all.filter { $0.direction == .upload }
        let downloads = all.filter { $0.direction == .download }
        #expect(uploads.last?.completedBytes == 300_000)
        #expect(uploads.last?.totalBytes == 300_000)
        #expect(downloads.last?.completedBytes == 400_000)
        #expect(downloads.last?.fractionCompleted == 1)
        #expect(downloads.map(\.completedBytes) == downloads.map(\.completedBytes).sorted())
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        server.enqueue(.init(status: 200, body: "late").with(headersDelay: .seconds(300)))
        let transport = self.transport
        let url = server.url("/wait")
        let task = Task { try await transport.send(HTTPRequest(url: url), context: RequestContext()) }
        try await Wait.until("the server holds the request") { server.requests.count == 1 }
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // Generous bound for a noisy machine; the point is that it does not wait for the server's 300 s.
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(30)))
    }

    @Test func aCancelledTaskSendsNothing() async throws {
        let transport = self.transport
        let url = server.url("/never")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(url: url), context: RequestContext())
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(server.requests.isEmpty)
    }

    @Test func curlCodesMapToStableSluiceCodes() {
        #expect(CurlError(code: 6, summary: "", detail: "").sluiceCode == .dnsFailure)
        #expect(CurlError(code: 7, summary: "", detail: "").sluiceCode == .cannotConnect)
        #expect(CurlError(code: 28, summary: "", detail: "").sluiceCode == .timedOut)
        #expect(CurlError(code: 35, summary: "", detail: "").sluiceCode == .tlsFailure)
        #expect(CurlError(code: 60, summary: "", detail: "").sluiceCode == .tlsFailure)
        #expect(CurlError(code: 90, summary: "", detail: "").sluiceCode == .tlsFailure)
        #expect(CurlError(code: 47, summary: "", detail: "").sluiceCode == .tooManyRedirects)
        #expect(CurlError(code: 52, summary: "", detail: "").sluiceCode == .connectionLost)
        #expect(CurlError(code: 56, summary: "", detail: "").sluiceCode == .connectionLost)
        #expect(CurlError(code: 8, summary: "", detail: "").sluiceCode == .invalidResponse)
        #expect(CurlError(code: 3, summary: "", detail: "").sluiceCode == .invalidURL)
        #expect(CurlError(code: 1, summary: "", detail: "Protocol \"ftp\" not supported").sluiceCode == .invalidURL)
        #expect(CurlError(code: 1, summary: "", detail: "Received HTTP/0.9 when not allowed").sluiceCode == .invalidResponse)
    }

    /// `http:/127.0.0.1:PORT/u` has no host for Foundation; curl would guess one and send the
    /// request, token and all. It is refused before curl sees it.
    @Test func aURLWithOneSlashAndNoHostIsInvalidAndNeverSent() async throws {
        let server = try MockWebServer()
        for text in ["http:/127.0.0.1:\(server.port)/u", "http:127.0.0.1:\(server.port)/u"] {
            let request = HTTPRequest(url: try #require(URL(string: text)), headers: ["Authorization": "Bearer t0k3n"])
            let error = await #expect(throws: SluiceError.self) { _ = try await makeTransport().send(request, context: RequestContext()) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message == "\(text) has no host: an http URL is written http://host/path")
        }
        #expect(server.requests.isEmpty)
    }

    @Test func aFieldALiteralLeftOutIsRefusedBeforeCurlSeesTheRequest() async throws {
        let server = try MockWebServer()
        let request = HTTPRequest(url: server.url("/x"), headers: ["X-Key": "k\u{0}"])
        let error = await #expect(throws: SluiceError.self) { _ = try await makeTransport().send(request, context: RequestContext()) }
        #expect(error?.code == .invalidHeader)
        #expect(error?.message == #"value of header "X-Key" has NUL (0x00) at byte 1; CR, LF and NUL are never allowed in header fields"#)
        #expect(server.requests.isEmpty)
    }
}

/// The name of the thread this runs on, as the kernel knows it (the event threads name themselves).
func currentThreadName() -> String? {
    (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
}

@Suite("CurlTransport with several event threads")
struct CurlTransportEventThreadTests {
    let server: MockWebServer

    init() throws { server = try MockWebServer() }

    @Test func sequentialRequestsStayOnTheFirstThreadAndReuseOneConnection() async throws {
        let transport = makeTransport { $0.eventThreads = 3 }
        for _ in 0..<5 { server.enqueue(.init(status: 200, body: "x")) }
        for _ in 0..<5 { _ = try await transport.send(HTTPRequest(url: server.url("/seq")), context: RequestContext()) }
        #expect(server.connectionCount == 1)
    }

    @Test func eachThreadRunsItsCallersAndKeepsItsOwnConnections() async throws {
        let transport = makeTransport { $0.eventThreads = 2 }
        #expect(transport.executors.count == 2)
        for _ in 0..<4 { server.enqueue(.init(status: 200, body: "x")) }
        var names: [String?] = []
        for index in [0, 1, 0, 1] {
            let name = try await withTaskExecutorPreference(transport.executors[index]) {
                _ = try await transport.send(HTTPRequest(url: server.url("/thread/\(index)")), context: RequestContext())
                return currentThreadName()
            }
            names.append(name)
        }
        #expect(names == ["sluice-curl-0", "sluice-curl-1", "sluice-curl-0", "sluice-curl-1"])
        // One connection per thread, each reused by the thread's second request.
        #expect(server.connectionCount == 2)
    }

    @Test func concurrentCallersSpreadToTheLeastBusyThread() async throws {
        let transport = makeTransport { $0.eventThreads = 2 }
        // The first request is held by the server; the second, sent meanwhile, finds thread 0
        // busy and goes to thread 1, so it cannot reuse the first one's connection either way,
        // but it must not wait behind it.
        server.setHandler { request in
            request.target == "/slow"
                ? MockWebServer.Response(status: 200, body: "slow").with(headersDelay: .seconds(300))
                : MockWebServer.Response(status: 200, body: "fast")
        }
        // Cancelled as the test leaves (an `async let` never awaited), not waited for.
        async let _ = transport.send(HTTPRequest(url: server.url("/slow")), context: RequestContext())
        try await Wait.until("the slow request is at the server") { server.requests.count == 1 }
        let started = ContinuousClock.now
        let fast = try await transport.send(HTTPRequest(url: server.url("/fast")), context: RequestContext())
        #expect(fast.body == Data("fast".utf8))
        #expect(started.duration(to: .now) < TestTiming.scaled(.seconds(30)), "not queued behind the slow one's 300 s")
        #expect(server.connectionCount == 2)
    }

    @Test func zeroOrNegativeThreadCountsMeanOne() {
        #expect(makeTransport { $0.eventThreads = 0 }.executors.count == 1)
        #expect(makeTransport { $0.eventThreads = -3 }.executors.count == 1)
    }
}

@Suite("CurlTransport handle reuse")
struct CurlTransportReuseTests {
    /// A recycled easy handle keeps no method or body from its previous request.
    @Test func methodsAndBodiesDoNotLeakBetweenRequestsOnOneHandle() async throws {
        let server = try MockWebServer()
        server.setHandler { _ in .init(status: 200, body: "ok") }
        let transport = CurlTransport()
        let sequence: [(HTTPMethod, HTTPBody)] = [
            (.post, .bytes(Data("one".utf8))), (.get, .empty), (.head, .empty), (.delete, .empty),
            (.post, .empty), (.put, .bytes(Data("two".utf8))), (.get, .empty), (.options, .empty),
        ]
        for (method, body) in sequence {
            _ = try await transport.send(HTTPRequest(method: method, url: server.url("/r"), body: body), context: RequestContext())
        }
        #expect(server.requests.map(\.method) == sequence.map(\.0.rawValue))
        #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["one", "", "", "", "", "two", "", ""])
        #expect(server.requests.map { $0.header("Content-Length") } == ["3", nil, nil, nil, "0", "3", nil, nil])
        #expect(server.connectionCount == 1)
    }
}

@Suite("CurlTransport's event threads")
struct CurlEventThreadTests {
    @Test func eachEventThreadIsMarkedAndNoOtherThreadIs() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.eventThreads = 2
        let transport = CurlTransport(configuration: configuration)
        #expect(!EventThread.isCurrent && !EventThread.isCurrentAndIdle)
        for executor in transport.executors {
            await withTaskExecutorPreference(executor) { #expect(EventThread.isCurrent && EventThread.isCurrentAndIdle) }
        }
        #expect(await Task.detached { EventThread.isCurrent }.value == false)
    }

    /// Records whether the chain ran on an event thread.
    struct ThreadProbe: Middleware {
        let seen: Locked<[Bool]>
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            seen.withLock { $0.append(EventThread.isCurrent) }
            let response = try await next(request, context)
            seen.withLock { $0.append(EventThread.isCurrent) }
            return response
        }
    }

    @Test func aClientKeepsACallerOnTheEventThreadThereAndLeavesOthersOnThePool() async throws {
        let server = try MockWebServer()
        defer { server.shutdown() }
        server.enqueue(.init(status: 200, body: "a"), .init(status: 200, body: "b"))
        let seen = Locked<[Bool]>([])
        let client = Client(transport: CurlTransport(), middlewares: [ThreadProbe(seen: seen)])
        _ = try await client.send(HTTPRequest(url: server.url("/pool")))
        #expect(seen.withLock { $0 } == [false, false])
        try await withTaskExecutorPreference(client.pipeline.preferredExecutor) {
            _ = try await client.send(HTTPRequest(url: server.url("/loop")))
            #expect(EventThread.isCurrent)
        }
        #expect(seen.withLock { $0 } == [false, false, true, true])
    }

    @Test func aLoopWithATransferInFlightIsNotIdle() async throws {
        let server = try MockWebServer()
        defer { server.shutdown() }
        let gate = TestGate()
        server.enqueue(MockWebServer.Response(status: 200, body: "late").with(stallAfter: 0, until: gate))
        let transport = CurlTransport()
        let slow = Task { try await transport.send(HTTPRequest(url: server.url("/slow")), context: RequestContext()) }
        try await Wait.until("the server has the request") { server.requests.count == 1 }
        await withTaskExecutorPreference(transport.executor) { #expect(EventThread.isCurrent && !EventThread.isCurrentAndIdle) }
        gate.open()
        #expect(try await slow.value.body == Data("late".utf8))
        await withTaskExecutorPreference(transport.executor) { #expect(EventThread.isCurrentAndIdle) }
    }
}
