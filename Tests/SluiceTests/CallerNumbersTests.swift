import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

/// The core's public numbers driven with every hostile value of ``CallerNumbers``: each is held to
/// its documented range or refused with a typed error, and nothing traps.
@Suite("Caller numbers: the core")
struct CallerNumbersTests {
    struct Empty: Codable, Equatable {}

    /// Every verb's `timeout:` and `deadline:`, on one client.
    typealias Call = @Sendable (Client, Duration?, ContinuousClock.Instant?) async throws -> Void

    static let calls: [Call] = [
        { try await _ = $0.get("x", timeout: $1, deadline: $2) },
        { try await _ = $0.get("x", as: Empty.self, timeout: $1, deadline: $2) },
        { try await _ = $0.post("x", body: .empty, timeout: $1, deadline: $2) },
        { try await _ = $0.post("x", json: Empty(), timeout: $1, deadline: $2) },
        { try await _ = $0.post("x", json: Empty(), as: Empty.self, timeout: $1, deadline: $2) },
        { try await _ = $0.put("x", body: .empty, timeout: $1, deadline: $2) },
        { try await _ = $0.put("x", json: Empty(), timeout: $1, deadline: $2) },
        { try await _ = $0.put("x", json: Empty(), as: Empty.self, timeout: $1, deadline: $2) },
        { try await _ = $0.patch("x", body: .empty, timeout: $1, deadline: $2) },
        { try await _ = $0.patch("x", json: Empty(), timeout: $1, deadline: $2) },
        { try await _ = $0.patch("x", json: Empty(), as: Empty.self, timeout: $1, deadline: $2) },
        { try await _ = $0.delete("x", timeout: $1, deadline: $2) },
        { try await _ = $0.delete("x", as: Empty.self, timeout: $1, deadline: $2) },
        { try await _ = $0.delete("x", json: Empty(), timeout: $1, deadline: $2) },
        { try await _ = $0.delete("x", json: Empty(), as: Empty.self, timeout: $1, deadline: $2) },
        { try await _ = $0.send(try $0.makeRequest(.get, "x"), timeout: $1, deadline: $2) },
        { try await _ = $0.send(try $0.makeRequest(.get, "x"), decoding: Empty.self, timeout: $1, deadline: $2) },
        { try await _ = $0.send(try $0.makeRequest(.get, "x"), decoder: StringResponseDecoder(), timeout: $1, deadline: $2) },
        { try await _ = $0.send(Greeting(), timeout: $1, deadline: $2) },
        { try await _ = $0.stream(try $0.makeRequest(.get, "x"), timeout: $1, deadline: $2) },
    ]

    struct Greeting: Endpoint {
        typealias Response = Empty
        var path: String { "x" }
    }

    static func client(_ transport: MockTransport, timeout: Duration? = nil) -> Client {
        Client(transport: transport, configuration: .init(baseURL: URL(string: "https://api.example.com/"), timeout: timeout))
    }

    /// A timeout of zero or less has passed: `.timedOut`, nothing sent. A positive one, however
    /// long (`.seconds(Int64.max)` is no limit), lets the call through.
    @Test(
        .covers(
            "Client.get(_:query:headers:timeout:deadline:) timeout", "Client.get(_:query:headers:as:timeout:deadline:) timeout",
            "Client.post(_:body:headers:timeout:deadline:) timeout", "Client.post(_:json:headers:timeout:deadline:) timeout",
            "Client.post(_:json:headers:as:timeout:deadline:) timeout", "Client.put(_:body:headers:timeout:deadline:) timeout",
            "Client.put(_:json:headers:timeout:deadline:) timeout", "Client.put(_:json:headers:as:timeout:deadline:) timeout",
            "Client.patch(_:body:headers:timeout:deadline:) timeout", "Client.patch(_:json:headers:timeout:deadline:) timeout",
            "Client.patch(_:json:headers:as:timeout:deadline:) timeout", "Client.delete(_:headers:timeout:deadline:) timeout",
            "Client.delete(_:headers:as:timeout:deadline:) timeout", "Client.delete(_:json:headers:timeout:deadline:) timeout",
            "Client.delete(_:json:headers:as:timeout:deadline:) timeout", "Client.send(_:context:timeout:deadline:with:) timeout",
            "Client.send(_:decoding:context:timeout:deadline:) timeout", "Client.send(_:decoder:context:timeout:deadline:) timeout",
            "Client.send(_:context:timeout:deadline:) timeout", "Client.stream(_:context:timeout:deadline:) timeout",
            "Client.Configuration.timeout"),
        arguments: CallerNumbers.durations)
    func timeouts(_ timeout: Duration) async throws {
        for asConfiguration in [false, true] {
            let transport = MockTransport { _, _ in .json("{}") }
            let client = Self.client(transport, timeout: asConfiguration ? timeout : nil)
            for call in Self.calls {
                if timeout < .milliseconds(1) {
                    // Past, or too short for any call: `.timedOut` whenever it ends the call.
                    let outcome = await Result { try await call(client, asConfiguration ? nil : timeout, nil) }
                    if timeout <= .zero || !outcome.isSuccess {
                        #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .timedOut && "\($0)".contains("deadline") }
                    }
                } else if timeout <= .zero {
                    await #expect { try await call(client, asConfiguration ? nil : timeout, nil) } throws: {
                        ($0 as? SluiceError)?.code == .timedOut && "\($0)".contains("deadline")
                    }
                } else {
                    try await call(client, asConfiguration ? nil : timeout, nil)
                }
            }
            if timeout <= .zero { #expect(transport.requests.isEmpty) }
            if timeout >= .milliseconds(1) { #expect(transport.requests.count == Self.calls.count) }
        }
    }

    /// A deadline past is `.timedOut` with nothing sent; one as far ahead as `Duration` reaches
    /// is no deadline.
    @Test(
        .covers(
            "Client.get(_:query:headers:timeout:deadline:) deadline", "Client.get(_:query:headers:as:timeout:deadline:) deadline",
            "Client.post(_:body:headers:timeout:deadline:) deadline", "Client.post(_:json:headers:timeout:deadline:) deadline",
            "Client.post(_:json:headers:as:timeout:deadline:) deadline", "Client.put(_:body:headers:timeout:deadline:) deadline",
            "Client.put(_:json:headers:timeout:deadline:) deadline", "Client.put(_:json:headers:as:timeout:deadline:) deadline",
            "Client.patch(_:body:headers:timeout:deadline:) deadline", "Client.patch(_:json:headers:timeout:deadline:) deadline",
            "Client.patch(_:json:headers:as:timeout:deadline:) deadline", "Client.delete(_:headers:timeout:deadline:) deadline",
            "Client.delete(_:headers:as:timeout:deadline:) deadline", "Client.delete(_:json:headers:timeout:deadline:) deadline",
            "Client.delete(_:json:headers:as:timeout:deadline:) deadline", "Client.send(_:context:timeout:deadline:with:) deadline",
            "Client.send(_:decoding:context:timeout:deadline:) deadline", "Client.send(_:decoder:context:timeout:deadline:) deadline",
            "Client.send(_:context:timeout:deadline:) deadline", "Client.stream(_:context:timeout:deadline:) deadline",
            "RequestContext.deadline"))
    func deadlines() async throws {
        for deadline in CallerNumbers.instants {
            let transport = MockTransport { _, _ in .json("{}") }
            let client = Self.client(transport)
            let passed = deadline <= .now
            for call in Self.calls {
                if passed {
                    await #expect { try await call(client, nil, deadline) } throws: { ($0 as? SluiceError)?.code == .timedOut }
                } else {
                    try await call(client, nil, deadline)
                }
            }
            #expect(transport.requests.count == (passed ? 0 : Self.calls.count))
            // A context's own deadline further than 100 years is none.
            var context = RequestContext(deadline: deadline)
            #expect((context.deadline == nil) == (deadline > .now + .seconds(3_155_760_000)))
            context.deadline = deadline
            #expect((context.deadline == nil) == (deadline > .now + .seconds(3_155_760_000)))
            #expect(context.remainingTime.map { $0 >= .zero } ?? true)
        }
    }

    /// The concurrency cap is held to at least 1: 0 or less lets one call through at a time (not
    /// none, which would hang every call).
    @Test(
        .covers(
            "PoolStatistics.init(origin:openConnections:busyConnections:waitingForConnection:queuedCalls:heldCalls:) openConnections",
            "PoolStatistics.init(origin:openConnections:busyConnections:waitingForConnection:queuedCalls:heldCalls:) busyConnections",
            "PoolStatistics.init(origin:openConnections:busyConnections:waitingForConnection:queuedCalls:heldCalls:) waitingForConnection",
            "PoolStatistics.init(origin:openConnections:busyConnections:waitingForConnection:queuedCalls:heldCalls:) queuedCalls",
            "PoolStatistics.init(origin:openConnections:busyConnections:waitingForConnection:queuedCalls:heldCalls:) heldCalls"),
        arguments: CallerNumbers.ints)
    func poolStatisticsHoldCountsAtZeroOrMoreAndNeverTrap(value: Int) {
        let figures = PoolStatistics(
            origin: "https://api.example.com:443", openConnections: value, busyConnections: value, waitingForConnection: value, queuedCalls: value,
            heldCalls: value)
        #expect(figures.openConnections == max(0, value) && figures.queuedCalls == max(0, value))
        #expect(figures.idleConnections == 0)
        #expect(figures.waiting == (value > Int.max / 3 ? Int.max : 3 * max(0, value)))
        let busier = PoolStatistics(origin: "x", openConnections: 1, busyConnections: value)
        #expect(busier.idleConnections == max(0, 1 - max(0, value)))
    }

    /// Issue 53, item 12: two middleware that hold calls for one origin, reporting `Int.max` and
    /// 1, trapped `Client.poolStatistics()`; every sum a public figure is built from is held at
    /// `Int.max`.
    @Test(arguments: [(Int.max, 1), (Int.max, Int.max), (Int.max - 1, 1), (5, 7)])
    func heldCallsReportedByMiddlewareAreSummedWithoutTrapping(first: Int, second: Int) async {
        struct Holding: Middleware, CallHolding {
            let count: Int
            func heldCalls() -> [String: Int] { ["https://api.example.com:443": count] }
            func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
                try await next(request, context)
            }
        }
        let client = Client(transport: MockTransport.successful(), middlewares: [Holding(count: first), Holding(count: second)])
        let figures = await client.poolStatistics()
        #expect(figures.map(\.origin) == ["https://api.example.com:443"])
        let (sum, overflow) = first.addingReportingOverflow(second)
        #expect(figures.first?.heldCalls == (overflow ? .max : sum))
        #expect(figures.first?.waiting == (overflow ? .max : sum))
    }

    @Test(.covers("Client.Configuration.maxConcurrentRequests"), arguments: CallerNumbers.ints)
    func maxConcurrentRequests(_ most: Int) async throws {
        let client = Client(transport: MockTransport.successful(), configuration: .init(maxConcurrentRequests: most))
        async let first = client.send(HTTPRequest(url: URL(string: "https://api.example.com/1")!), timeout: .seconds(60))
        async let second = client.send(HTTPRequest(url: URL(string: "https://api.example.com/2")!), timeout: .seconds(60))
        #expect(try await [first.status, second.status] == [.ok, .ok])
    }

    /// A body limit of 0 or less takes no byte; any other takes a body within it.
    @Test(.covers("Client.Configuration.maxResponseBodySize"), arguments: CallerNumbers.ints)
    func maxResponseBodySize(_ limit: Int) async throws {
        let transport = MockTransport(replies: [.status(.ok, headers: ["Content-Type": "text/plain"], body: "body")])
        let client = Client(transport: transport, configuration: .init(maxResponseBodySize: limit))
        let outcome = await Result { try await client.send(HTTPRequest(url: URL(string: "https://api.example.com/1")!), decoder: StringResponseDecoder()) }
        if limit >= 4 {
            #expect(try outcome.get() == "body")
        } else {
            #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge }
        }
    }

    /// Any range of statuses, empty or whole.
    @Test(.covers("Client.Configuration.acceptableStatusCodes"))
    func acceptableStatusCodes() async throws {
        for range in [Int.min..<Int.max, 0..<0, 200..<300, Int.max..<Int.max, -1..<0] {
            let client = Client(transport: MockTransport.successful(), configuration: .init(acceptableStatusCodes: range))
            let outcome = Result { try client.validate(HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"])) }
            if range.contains(200) {
                #expect(try outcome.get().status == .ok)
            } else {
                #expect { try outcome.get() } throws: { ($0 as? SluiceError)?.code == .unacceptableStatus }
            }
        }
    }

    /// A status code outside 100...999 is no status a server can send; `HTTPStatus` keeps what it
    /// is given and never traps on printing or classifying it.
    @Test(.covers("HTTPStatus.init(code:reasonPhrase:) code", "HTTPStatus.init(integerLiteral:) integerLiteral"), arguments: CallerNumbers.ints)
    func statusCodes(_ code: Int) {
        let status = HTTPStatus(code: code)
        #expect(status.code == code)
        #expect("\(status)".contains(String(code)))
        #expect(status.isSuccess == (200..<300).contains(code))
    }

    /// Declared lengths of a streamed body: a negative one is no length; any other is a claim
    /// the transport checks.
    @Test(.covers("HTTPBody.Stream.oneShot(length:_:) length", "HTTPBody.Stream.replayable(length:_:) length"), arguments: CallerNumbers.int64s)
    func streamLengths(_ length: Int64) async throws {
        let oneShot = HTTPBody.Stream.oneShot(length: length, AsyncThrowingStream { $0.finish() })
        let replayable = HTTPBody.Stream.replayable(length: length) { AsyncThrowingStream { $0.finish() } }
        for stream in [oneShot, replayable] {
            #expect(stream.length == (length < 0 ? nil : length))
            #expect(HTTPBody.stream(stream).length == (length < 0 ? nil : length))
        }
    }

    /// Limits of a collect: 0 or less takes no byte (a non-empty body is `.bodyTooLarge`);
    /// `Int.max` takes all.
    @Test(.covers("HTTPBody.collect(limit:) limit", "ResponseBodyStream.collect(upTo:) upTo"), arguments: CallerNumbers.ints)
    func collectLimits(_ limit: Int) async throws {
        let data = Data("four".utf8)
        let fits = limit >= data.count
        let collected = await Result { try await HTTPBody.bytes(data).collect(limit: limit) }
        if fits { #expect(try collected.get() == data) } else { #expect { try collected.get() } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge } }
        let stream = ResponseBodyStream(data)
        let streamed = await Result { try await stream.collect(upTo: limit) }
        if fits { #expect(try streamed.get() == data) } else { #expect { try streamed.get() } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge } }
    }

    /// A stream's high-water mark is held to at least one chunk.
    @Test(.covers("ResponseBodyStream.makeStream(highWater:owner:) highWater"), arguments: CallerNumbers.ints)
    func highWater(_ highWater: Int) async throws {
        let (stream, writer) = ResponseBodyStream.makeStream(highWater: highWater)
        let producer = Task {
            for _ in 0..<3 {
                while writer.write(Data("ab".utf8)) == .full { await Task.yield() }
            }
            writer.finish()
        }
        #expect(try await stream.collect(upTo: 100) == Data("ababab".utf8))
        await producer.value
    }

    /// Capacity is a hint: a negative or huge one reserves nothing it cannot.
    @Test(.covers("HTTPFields.reserveCapacity(_:) count"), arguments: CallerNumbers.ints)
    func reserveCapacity(_ count: Int) throws {
        var fields: HTTPFields = ["A": "1"]
        fields.reserveCapacity(count)
        try fields.append(name: "B", value: "2")
        #expect(fields.count == 2)
    }

    /// A field error's offset and byte are what they say, printed whatever they are.
    @Test(
        .covers(
            "HTTPFields.FieldError.init(name:part:problem:byteOffset:) byteOffset", "HTTPFields.FieldError.Problem.controlCharacter(_:)",
            "HTTPFields.FieldError.Problem.forbiddenCharacter(_:)", "HTTPFields.FieldError.Problem.notTokenCharacter(_:)"),
        arguments: CallerNumbers.ints)
    func fieldErrors(_ offset: Int) {
        for byte: UInt8 in [0, 0x7F, 0xFF] {
            for problem in [HTTPFields.FieldError.Problem.controlCharacter(byte), .forbiddenCharacter(byte), .notTokenCharacter(byte)] {
                let error = HTTPFields.FieldError(name: "X", part: .value, problem: problem, byteOffset: offset)
                #expect("\(error)".contains("X"))
            }
        }
    }

    /// A context's counts are records: any value is kept.
    @Test(.covers("RequestContext.attempt", "RequestContext.requestID"), arguments: CallerNumbers.ints)
    func counts(_ count: Int) {
        var context = RequestContext()
        context.attempt = count
        context.requestID = UInt64(truncatingIfNeeded: count)
        #expect(context.attempt == count)
    }

    /// A reported count is a record: any value is kept as it is (metrics count only one above 0).
    @Test(.covers("ReportedValue.count(_:)"), arguments: CallerNumbers.ints)
    func reportedCounts(_ count: Int) {
        #expect(ReportedValue.count(count) == .count(count))
        #expect(ReportedValue.count(count) != .flag(true))
    }

    /// A position's rank orders the chain whatever it is, the extremes included.
    @Test(.covers("MiddlewarePosition.init(rank:name:) rank"), arguments: CallerNumbers.ints)
    func ranks(_ rank: Int) {
        let position = MiddlewarePosition(rank: rank, name: "mine")
        #expect(position.rank == rank)
        #expect((position < .network) == (rank < MiddlewarePosition.network.rank))
    }

    /// Numbers in parameters, written as they are: NaN and the infinities as `nan`, `inf` and
    /// `-inf`, as Python's `requests` writes them.
    @Test(
        .covers(
            "ParameterValue.double(_:)", "ParameterValue.init(floatLiteral:) floatLiteral", "ParameterValue.integer(_:)",
            "ParameterValue.init(integerLiteral:) integerLiteral"),
        arguments: CallerNumbers.doubles)
    func parameterNumbers(_ number: Double) async throws {
        let client = Client(transport: MockTransport.successful(), configuration: .init(baseURL: URL(string: "https://api.example.com/")))
        let response = try await client.get("x", query: ["n": .double(number)])
        let expected =
            number.isNaN
            ? "nan"
            : number == .infinity
                ? "inf"
                : number == -.infinity
                    ? "-inf"
                    : number == number.rounded() && abs(number) < 1e15
                        ? String(Int(number)) : "\(number)".replacingOccurrences(of: "+", with: "%2B")
        #expect(response.request?.url.query == "n=\(expected)")
        for integer in CallerNumbers.ints {
            let response = try await client.get("x", query: ["n": .integer(integer)])
            #expect(response.request?.url.query == "n=\(integer)")
        }
    }

    /// A problem's numbers are records, printed as they are.
    @Test(.covers("ProblemDetails.status", "ProblemDetails.Value.number(_:)"), arguments: CallerNumbers.doubles)
    func problemDetails(_ number: Double) {
        var problem = ProblemDetails(title: "t", status: Int(clamping: number), extensions: ["n": .number(number)])
        problem.status = .min
        #expect("\(problem)".contains("t"))
    }

    /// A redirect limit of 0 or less follows none; `Int.max` follows until the chain ends.
    @Test(.covers("RedirectPolicy.follow(max:)"), arguments: CallerNumbers.ints)
    func redirectLimits(_ most: Int) async throws {
        let transport = MockTransport { request, _ in
            request.url.path == "/a" ? .status(.found, headers: ["Location": "/b"]) : .status(.ok, body: "b")
        }
        let client = Client(transport: transport)
        var request = HTTPRequest(url: URL(string: "https://api.example.com/a")!)
        request.redirectPolicy = .follow(max: most)
        let outcome = await Result { try await client.send(request) }
        if most >= 1 {
            #expect(try outcome.get().text == "b")
        } else {
            #expect { try outcome.get() } throws: {
                ($0 as? SluiceError)?.code == .tooManyRedirects && "\($0)".contains("more than 0 redirects, the last from https://api.example.com/a")
            }
        }
    }

    /// Transfer records: whatever a caller (or a mock) puts in them prints without trapping.
    @Test(
        .covers(
            "TransferMetrics.bytesReceived", "TransferMetrics.bytesSent", "TransferMetrics.connect", "TransferMetrics.firstByte",
            "TransferMetrics.nameLookup", "TransferMetrics.redirectCount", "TransferMetrics.tlsHandshake", "TransferMetrics.total",
            "TransferProgress.completedBytes", "TransferProgress.totalBytes"),
        arguments: CallerNumbers.durations)
    func transferRecords(_ duration: Duration) {
        for count in CallerNumbers.int64s {
            let metrics = TransferMetrics(
                nameLookup: duration, connect: duration, tlsHandshake: duration, firstByte: duration, total: duration,
                redirectCount: Int(count), bytesSent: count, bytesReceived: count)
            #expect(!"\(metrics)".isEmpty)
            let progress = TransferProgress(direction: .download, completedBytes: count, totalBytes: count)
            #expect(progress.fractionCompleted.map { $0.isFinite } ?? true)
        }
    }
}
