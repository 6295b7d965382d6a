import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

/// A MockWebServer whose handler holds each request for a while and counts how many it is
/// holding at once: the concurrency the client really produced, seen from the server. Requests
/// whose path contains "slow" wait until ``release()`` (or 10 s), so a test decides when they end
/// however loaded the machine is.
final class CountingServer: Sendable {
    private final class Counts: Sendable {
        let state = Locked((current: 0, peak: 0, order: [String]()))
        let gate = TestGate()
    }

    let server: MockWebServer
    private let counts = Counts()

    init(hold: Duration = .milliseconds(60)) throws {
        server = try MockWebServer()
        let counts = self.counts
        server.setHandler { request in
            counts.state.withLock { counts in
                counts.current += 1
                counts.peak = max(counts.peak, counts.current)
                counts.order.append(request.target)
            }
            if request.target.contains("slow") {
                counts.gate.wait(timeout: TestTiming.scaled(.seconds(60)))
            } else {
                Thread.sleep(forTimeInterval: hold.timeInterval)
            }
            counts.state.withLock { $0.current -= 1 }
            return .init(status: 200, body: request.target)
        }
    }

    deinit { release() }

    /// Lets every held "slow" request (and any later one) answer.
    func release() {
        counts.gate.open()
    }

    var peak: Int { counts.state.withLock { $0.peak } }
    var order: [String] { counts.state.withLock { $0.order } }
    var received: Int { counts.state.withLock { $0.order.count } }
    func url(_ path: String) -> URL { server.url(path) }
}

@Suite("Client request management against MockWebServer")
struct ClientManagementTests {
    func client(limit: Int? = nil, cancellationIsError: Bool = false) -> Client {
        Client(transport: CurlTransport(), configuration: .init(maxConcurrentRequests: limit, reportsCancellationAsError: cancellationIsError))
    }

    func request(_ url: URL, tags: Set<String> = [], priority: RequestPriority = .normal) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.tags = tags
        request.priority = priority
        return request
    }

    @Test func twentyRequestsWithALimitOfThreeNeverHaveMoreThanThreeAtTheServer() async throws {
        let server = try CountingServer()
        let client = client(limit: 3)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask { try await client.send(HTTPRequest(url: server.url("/slow/item/\(index)"))).status.code }
            }
            // The server holds the first three; the other seventeen must wait in the client.
            try await Wait.until("three are held and seventeen queued") {
                server.received == 3 && client.inFlight.filter { $0.state == .queued }.count == 17
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.received == 3)
            server.release()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(server.received == 20)
        print("concurrency limit 3: the server saw at most \(server.peak) requests at once")
        #expect(server.peak == 3)
        #expect(client.inFlight.isEmpty)
    }

    @Test func theQueueServesHigherPriorityFirstThenInArrivalOrder() async throws {
        let server = try CountingServer(hold: .milliseconds(20))
        let client = client(limit: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await client.send(request(server.url("/slow-first"))) }
            try await Wait.until("the first request holds the only slot") { server.received == 1 }
            for (path, priority) in [("/low-1", RequestPriority.low), ("/normal-1", .normal), ("/low-2", .low), ("/high-1", .high), ("/normal-2", .normal)] {
                group.addTask { _ = try await client.send(request(server.url(path), priority: priority)) }
                try await Wait.until("\(path) is queued") { client.inFlight.contains { $0.url.path == path && $0.state == .queued } }
            }
            #expect(client.inFlight.map(\.state) == [.running, .queued, .queued, .queued, .queued, .queued])
            server.release()
            try await group.waitForAll()
        }
        #expect(server.order == ["/slow-first", "/high-1", "/normal-1", "/normal-2", "/low-1", "/low-2"])
    }

    @Test func cancelByTagEndsOnlyTheTaggedRequests() async throws {
        let server = try CountingServer()
        let client = client()
        let outcomes = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for index in 0..<6 {
                let tags: Set<String> = index.isMultiple(of: 2) ? ["screen-a"] : ["screen-b"]
                let path = "/slow/\(index)"
                group.addTask {
                    do {
                        let response = try await client.send(request(server.url(path), tags: tags))
                        return (path, "\(response.status.code)")
                    } catch is CancellationError {
                        return (path, "cancelled")
                    }
                }
            }
            try await Wait.until("all six reach the server") { server.received == 6 }
            #expect(client.inFlight.count == 6)
            #expect(!client.isFinished(tags: ["screen-a"]))
            #expect(client.cancel(tag: "screen-a") == 3)
            try await Wait.until("the tagged ones end") { client.isFinished(tags: ["screen-a"]) }
            #expect(!client.isFinished(tags: ["screen-b"]))
            server.release()
            return try await group.reduce(into: [String: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(
            outcomes == [
                "/slow/0": "cancelled", "/slow/2": "cancelled", "/slow/4": "cancelled",
                "/slow/1": "200", "/slow/3": "200", "/slow/5": "200",
            ])
        #expect(client.isFinished(tags: ["screen-a", "screen-b"]))
    }

    @Test func cancelByURLPrefixEndsOnlyTheMatchingRequests() async throws {
        let server = try CountingServer()
        let client = client()
        let paths = ["/slow/search?q=a", "/slow/search?q=b", "/slow/searching", "/slow/feed", "/slow/profile"]
        let outcomes = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for path in paths {
                group.addTask {
                    do {
                        return (path, "\(try await client.send(request(server.url(path))).status.code)")
                    } catch is CancellationError {
                        return (path, "cancelled")
                    }
                }
            }
            try await Wait.until("all five reach the server") { server.received == 5 }
            #expect(!client.isFinished(urls: [server.url("/slow/feed")]))
            #expect(client.cancel(urlPrefix: server.url("/slow/search").absoluteString) == 3)
            try await Wait.until("the matching ones end") { client.inFlight.count == 2 }
            server.release()
            return try await group.reduce(into: [String: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(
            outcomes == [
                "/slow/search?q=a": "cancelled", "/slow/search?q=b": "cancelled", "/slow/searching": "cancelled",
                "/slow/feed": "200", "/slow/profile": "200",
            ])
        #expect(client.isFinished(urls: paths.map { server.url($0) }))
    }

    @Test func cancelAllReachesQueuedAndRunningCallsAndTheSlotsComeBack() async throws {
        let server = try CountingServer(hold: .milliseconds(20))
        let client = client(limit: 2)
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<5 {
                group.addTask {
                    do {
                        _ = try await client.send(request(server.url("/slow/\(index)")))
                        return "done"
                    } catch is CancellationError {
                        return "cancelled"
                    }
                }
            }
            try await Wait.until("two run and three wait") {
                client.inFlight.filter { $0.state == .running }.count == 2 && client.inFlight.filter { $0.state == .queued }.count == 3
            }
            #expect(client.cancelAll() == 5)
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == Array(repeating: "cancelled", count: 5))
        #expect(client.inFlight.isEmpty)
        // Both slots are free again: two new calls run side by side. This server answers each
        // only once it holds both (or after 10 s), so its peak shows whether they overlapped.
        let pair = try MockWebServer()
        let held = Locked((current: 0, peak: 0))
        pair.setHandler { request in
            held.withLock {
                $0.current += 1; $0.peak = max($0.peak, $0.current)
            }
            let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(60))
            while held.withLock({ $0.peak }) < 2, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
            held.withLock { $0.current -= 1 }
            return .init(status: 200, body: request.target)
        }
        async let first = client.send(request(pair.url("/after/1")))
        async let second = client.send(request(pair.url("/after/2")))
        #expect(try await [first.status.code, second.status.code] == [200, 200])
        #expect(held.withLock { $0.peak } == 2)
    }

    @Test func aCancelledCallerLeavesTheQueueAndFreesNothingItDidNotHold() async throws {
        let server = try CountingServer(hold: .milliseconds(20))
        let client = client(limit: 1)
        let holder = Task { try await client.send(request(server.url("/slow/holder"))) }
        try await Wait.until("the holder runs") { server.received == 1 }
        let waiter = Task { try await client.send(request(server.url("/queued"))) }
        try await Wait.until("the waiter is queued") { client.inFlight.count == 2 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(client.inFlight.map(\.url.path) == ["/slow/holder"])
        server.release()
        #expect(try await holder.value.status.code == 200)
        #expect(try await client.send(request(server.url("/next"))).status.code == 200)
        #expect(!server.order.contains("/queued"))
    }

    /// A call waiting inside a middleware's own await (not in the transport) is cancelled there
    /// too: by the client, and by its caller's task; the other calls run on.
    @Test func aCallWaitingInAMiddlewareIsCancelledThere() async throws {
        struct Waits: Middleware {
            func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
                if request.url.path.hasPrefix("/wait") { try await Task.sleep(for: .seconds(600)) }
                return try await next(request, context)
            }
        }
        let server = try CountingServer()
        let client = Client(transport: CurlTransport(), middlewares: [Waits()])
        let started = ContinuousClock.now
        let byClient = Task { try await client.send(request(server.url("/wait/client"), tags: ["a"])) }
        let byCaller = Task { try await client.send(request(server.url("/wait/caller"))) }
        try await Wait.until("both wait in the middleware") { client.inFlight.count == 2 }
        #expect(client.cancel(tag: "a") == 1)
        await #expect(throws: CancellationError.self) { try await byClient.value }
        #expect(client.inFlight.map(\.url.path) == ["/wait/caller"])
        byCaller.cancel()
        await #expect(throws: CancellationError.self) { try await byCaller.value }
        #expect(client.inFlight.isEmpty)
        #expect(started.duration(to: .now) < TestTiming.scaled(.seconds(30)))
        #expect(try await client.send(request(server.url("/after"))).text == "/after")
        #expect(server.order == ["/after"])
    }

    @Test func cancellationCanBeReportedAsAnErrorThatSaysWho() async throws {
        let server = try CountingServer()
        let client = client(cancellationIsError: true)
        let call = Task { try await client.send(request(server.url("/slow/x"), tags: ["upload"])) }
        try await Wait.until("the call reaches the server") { server.received == 1 }
        client.cancel(tag: "upload")
        do {
            _ = try await call.value
            Issue.record("expected the call to be cancelled")
        } catch let error as SluiceError {
            #expect(error.code == .cancelled)
            #expect(error.stage == .client)
            #expect(error.message == "GET \(server.url("/slow/x").absoluteString) was cancelled: cancel(tag: \"upload\")")
        }
    }
}
