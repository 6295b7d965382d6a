import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

/// A thread-safe list of events, for asserting order.
final class EventLog: Sendable {
    private let events = Locked<[String]>([])
    func add(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

/// Logs "name>" on the way in and "<name" on the way out, and tags the request and response.
struct Recorder: Middleware {
    let name: String
    let log: EventLog

    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        log.add("\(name)>")
        var request = request
        try request.headers.append(name: "X-Path", value: name)
        var response = try await next(request, context)
        try response.headers.append(name: "X-Back", value: name)
        log.add("<\(name)")
        return response
    }
}

/// Answers without calling `next`.
struct ShortCircuit: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: Data("from cache".utf8))
        response.source = .cache
        return response
    }
}

/// Calls `next` twice and returns the second response, with the attempt number raised.
struct CallsTwice: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        _ = try await next(request, context)
        var second = context
        second.attempt += 1
        return try await next(request, second)
    }
}

struct Throws: Middleware {
    struct Boom: Error, Equatable {}
    let error: any Error
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        throw error
    }
}

/// Catches whatever the inner chain throws and throws it again (a middleware that looks at errors).
struct Rethrows: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        do { return try await next(request, context) } catch { throw error }
    }
}

struct Spin: Middleware {
    /// Burns a little CPU so its own time is visibly non-zero.
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var x: UInt64 = 1
        for i in 0..<20_000 { x = x &* 6_364_136_223_846_793_005 &+ UInt64(i) }
        precondition(x != 0)
        return try await next(request, context)
    }
}

@Suite("Pipeline")
struct PipelineTests {
    let url = URL(string: "https://example.com/items")!

    @Test func indexZeroSeesTheRequestFirstAndTheResponseLast() async throws {
        let log = EventLog()
        let transport = MockTransport(replies: [.status(.ok)])
        let pipeline = Pipeline(
            middlewares: [Recorder(name: "a", log: log), Recorder(name: "b", log: log), Recorder(name: "c", log: log)],
            transport: transport
        )
        let response = try await pipeline.send(HTTPRequest(url: url))
        #expect(log.all == ["a>", "b>", "c>", "<c", "<b", "<a"])
        #expect(transport.requests.first?.request.headers.values(for: "X-Path") == ["a", "b", "c"])
        #expect(response.headers.values(for: "X-Back") == ["c", "b", "a"])
        #expect(response.request?.headers.values(for: "X-Path") == ["a", "b", "c"], "the request as finally sent")
    }

    @Test func shortCircuitNeverReachesTheTransport() async throws {
        let log = EventLog()
        let transport = MockTransport(replies: [])
        let pipeline = Pipeline(
            middlewares: [Recorder(name: "outer", log: log), ShortCircuit(), Recorder(name: "inner", log: log)],
            transport: transport
        )
        let response = try await pipeline.send(HTTPRequest(url: url))
        #expect(response.text == "from cache")
        #expect(response.source == .cache)
        #expect(transport.requests.isEmpty)
        #expect(log.all == ["outer>", "<outer"])
    }

    @Test func aMiddlewareMayCallNextTwice() async throws {
        let log = EventLog()
        let transport = MockTransport(replies: [.status(.serviceUnavailable), .status(.ok)])
        let pipeline = Pipeline(middlewares: [CallsTwice(), Recorder(name: "inner", log: log)], transport: transport)
        let response = try await pipeline.send(HTTPRequest(url: url))
        #expect(response.status == .ok)
        #expect(transport.requests.map(\.context.attempt) == [1, 2])
        #expect(log.all == ["inner>", "<inner", "inner>", "<inner"])
    }

    @Test func aMiddlewaresOwnErrorIsWrappedWithItsStage() async throws {
        let pipeline = Pipeline(
            middlewares: [Rethrows(), Throws(error: Throws.Boom())], transport: MockTransport(replies: [])
        )
        let error = try await sendError(pipeline)
        #expect(error.code == .other)
        #expect(error.stage == .middleware(Throws.self))
        #expect(error.stage?.is(Throws.self) == true)
        #expect(error.underlying as? Throws.Boom == Throws.Boom())
        #expect(error.message == "middleware Throws threw Boom")
    }

    @Test func aSluiceErrorWithoutStageGetsTheStageOfTheMiddlewareThatThrewIt() async throws {
        let pipeline = Pipeline(
            middlewares: [Rethrows(), Throws(error: SluiceError(.offline, "no route"))],
            transport: MockTransport(replies: [])
        )
        let error = try await sendError(pipeline)
        #expect(error.code == .offline)
        #expect(error.stage == .middleware(Throws.self))
        #expect(error.message == "no route")
    }

    @Test func transportErrorsNameTheTransportAndPassOuterMiddlewareUnchanged() async throws {
        let pipeline = Pipeline(
            middlewares: [Rethrows(), Recorder(name: "r", log: EventLog())],
            transport: MockTransport.failing(with: SluiceError(.cannotConnect, "refused"))
        )
        let error = try await sendError(pipeline)
        #expect(error.code == .cannotConnect)
        #expect(error.stage == .transport(MockTransport.self))
        #expect(error.stage?.is(MockTransport.self) == true)
        #expect(error.description == "[transport MockTransport] cannotConnect: refused")
    }

    @Test func cancellationErrorPassesThroughUnwrapped() async throws {
        let pipeline = Pipeline(
            middlewares: [Rethrows(), Throws(error: CancellationError())], transport: MockTransport(replies: [])
        )
        await #expect(throws: CancellationError.self) { try await pipeline.send(HTTPRequest(url: self.url)) }
    }

    @Test func cancellingTheTaskEndsTheCallWithCancellationError() async throws {
        let transport = MockTransport(configuration: .init(latency: .seconds(300))) { _, _ in .status(.ok) }
        let pipeline = Pipeline(middlewares: [Rethrows(), Recorder(name: "r", log: EventLog())], transport: transport)
        let task = Task { try await pipeline.send(HTTPRequest(url: url)) }
        try await Wait.until("the request reached the transport") { transport.requests.count == 1 }
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // Far from the transport's 300 s, and far above a loaded machine's stalls (``TestTiming``).
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(30)))
    }

    @Test func traceIsAbsentWhenTracingIsOff() async throws {
        let pipeline = Pipeline(middlewares: [Spin()], transport: MockTransport.successful())
        let response = try await pipeline.send(HTTPRequest(url: url))
        #expect(response.trace == nil)
    }

    @Test func traceRecordsEachStagesOwnTimeAndCalls() async throws {
        let pipeline = Pipeline(
            middlewares: [Spin(), CallsTwice(), Recorder(name: "r", log: EventLog())],
            transport: MockTransport.successful()
        )
        var context = RequestContext()
        context.isTracing = true
        let response = try await pipeline.send(HTTPRequest(url: url), context: context)
        let trace = try #require(response.trace)
        #expect(
            trace.spans.map(\.stage) == [
                .middleware(Spin.self), .middleware(CallsTwice.self), .middleware(Recorder.self), .transport(MockTransport.self),
            ])
        #expect(trace.spans.map(\.calls) == [1, 1, 2, 2])
        let spin = try #require(trace.span(for: Spin.self))
        #expect(spin.ownTime > .zero)
        #expect(trace.total >= spin.ownTime)
        #expect(trace.description.contains("middleware CallsTwice"))
    }

    @Test func traceOfAShortCircuitLeavesInnerStagesUncalled() async throws {
        let pipeline = Pipeline(middlewares: [ShortCircuit(), Spin()], transport: MockTransport.successful())
        var context = RequestContext()
        context.isTracing = true
        let trace = try #require(try await pipeline.send(HTTPRequest(url: url), context: context).trace)
        #expect(trace.spans.map(\.calls) == [1, 0, 0])
        #expect(trace.spans[1].ownTime == .zero)
    }

    @Test func tracedChainAttributesErrorsToo() async throws {
        let pipeline = Pipeline(middlewares: [Rethrows(), Throws(error: Throws.Boom())], transport: MockTransport(replies: []))
        var context = RequestContext()
        context.isTracing = true
        let error = try await sendError(pipeline, context: context)
        #expect(error.stage == .middleware(Throws.self))
    }

    @Test func pipelinesNest() async throws {
        let log = EventLog()
        let inner = Pipeline(middlewares: [Recorder(name: "inner", log: log)], transport: MockTransport.successful())
        let outer = Pipeline(middlewares: [Recorder(name: "outer", log: log)], transport: inner)
        _ = try await outer.send(HTTPRequest(url: url))
        #expect(log.all == ["outer>", "inner>", "<inner", "<outer"])
    }

    @Test func middlewareNextFromAClosureTestsAMiddlewareByHand() async throws {
        let log = EventLog()
        let next = MiddlewareNext { request, _ in
            HTTPResponse(status: .accepted, body: Data(request.headers["X-Path"]!.utf8))
        }
        let response = try await Recorder(name: "solo", log: log).intercept(HTTPRequest(url: url), context: RequestContext(), next: next)
        #expect(response.status == .accepted)
        #expect(response.text == "solo")
    }

    @Test func requestIDsAreUniqueAndAttemptsStartAtOne() {
        let a = RequestContext(), b = RequestContext()
        #expect(a.requestID != b.requestID)
        #expect(a.attempt == 1)
        #expect(RequestContext(deadline: .now - .seconds(1)).isPastDeadline)
        #expect(RequestContext(deadline: .now + .seconds(60)).remainingTime! > .seconds(59))
    }

    private func sendError(_ pipeline: Pipeline, context: RequestContext = RequestContext()) async throws -> SluiceError {
        do {
            let response = try await pipeline.send(HTTPRequest(url: url), context: context)
            Issue.record("expected an error, got \(response)")
            throw CancellationError()
        } catch let error as SluiceError {
            return error
        }
    }

    /// Keeps the handles its pipelines give it.
    final class Handles: Sendable {
        let all = Locked<[ChainHandle]>([])
    }

    struct Attaching: ChainAttachable {
        let handles: Handles
        func attach(to chain: ChainHandle) { handles.all.withLock { $0.append(chain) } }
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            var request = request
            try request.headers.append(name: "X-Seen", value: "attaching")
            return try await next(request, context)
        }
    }

    @Test func aChainAttachableMiddlewareGetsTheWholeChainHeldWeakly() async throws {
        let handles = Handles()
        let transport = MockTransport.successful(body: "ok")
        var pipeline: Pipeline? = Pipeline(middlewares: [TestHeader(name: "X-Outer"), Attaching(handles: handles)], transport: transport)
        let handle = try #require(handles.all.withLock { $0.first })
        #expect(handles.all.withLock { $0.count } == 1)
        // From the top: the outer middleware runs too.
        let response = try await handle.send(HTTPRequest(url: URL(string: "https://api.example.com/x")!))
        #expect(response?.text == "ok")
        #expect(transport.requests.last?.request.headers["X-Outer"] == "1")
        #expect(transport.requests.last?.request.headers["X-Seen"] == "attaching")
        #expect(handle.isAlive)
        _ = pipeline
        pipeline = nil
        #expect(!handle.isAlive)
        #expect(try await handle.send(HTTPRequest(url: URL(string: "https://api.example.com/x")!)) == nil)
        #expect(transport.requests.count == 1)
    }

    struct TestHeader: Middleware {
        let name: String
        func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            var request = request
            try request.headers.set(name: name, value: "1")
            return try await next(request, context)
        }
    }
}
