#if Metrics
    import Foundation
    import Metrics
    import MetricsTestKit
    import Sluice
    import SluiceCache
    import SluiceMetrics
    import SluiceResilience
    import SluiceRetry
    import SluiceTesting
    import Testing

    @Suite struct MetricsMiddlewareTests {
        let metrics = TestMetrics()

        func pipeline(_ replies: [MockTransport.Reply], retry: Bool = false) -> Pipeline {
            var middlewares: [any Middleware] = [MetricsMiddleware(configuration: .init(factory: metrics))]
            if retry { middlewares.append(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(1))))) }
            return Pipeline(middlewares: middlewares, transport: MockTransport(replies: replies))
        }

        func request(_ method: HTTPMethod = .get, body: HTTPBody = .empty) -> HTTPRequest {
            var request = HTTPRequest(method: method, url: URL(string: "https://api.example.com/users")!, body: body)
            request.operationName = "listUsers"
            return request
        }

        @Test func aCallIsCountedTimedAndMeasuredByItsDimensions() async throws {
            _ = try await pipeline([.status(.ok, body: "hello")]).send(request(.post, body: .bytes(Data("12345678".utf8))))
            let requests = try metrics.expectCounter(
                "sluice_http_client_requests_total",
                [("method", "POST"), ("status_class", "2xx"), ("host", "api.example.com"), ("operation", "listUsers"), ("source", "network")])
            #expect(requests.totalValue == 1)
            let duration = try metrics.expectTimer(
                "sluice_http_client_request_duration",
                [("method", "POST"), ("status_class", "2xx"), ("host", "api.example.com"), ("operation", "listUsers")])
            #expect(duration.values.count == 1)
            #expect(try metrics.expectCounter("sluice_http_client_request_body_bytes_total", [("host", "api.example.com")]).totalValue == 8)
            #expect(try metrics.expectCounter("sluice_http_client_response_body_bytes_total", [("host", "api.example.com")]).totalValue == 5)
        }

        /// Issue 41, item 8: with no cache in the chain, no cache metric at all (it was a `miss`
        /// for every call); with one, its misses, hits and revalidations, and nothing for a
        /// request it does not look up (a POST).
        @Test func cacheResultsAreCountedOnlyWhenACacheLooked() async throws {
            _ = try await pipeline([.status(.ok), .status(.ok)]).send(request())
            #expect(!metrics.counters.contains { $0.label == "sluice_http_client_cache_total" })

            let replies: [MockTransport.Reply] = [
                .status(.ok, headers: ["Cache-Control": "max-age=60"], body: "a"), .status(.ok, body: "b"),
                .status(.ok, headers: ["Cache-Control": "no-cache", "ETag": "\"v1\""], body: "c"), .status(304),
            ]
            let cached = Pipeline(
                middlewares: [MetricsMiddleware(configuration: .init(factory: metrics)), CacheMiddleware(store: MemoryCacheStore())],
                transport: MockTransport(replies: replies))
            _ = try await cached.send(request())  // miss, stored
            _ = try await cached.send(request())  // hit
            _ = try await cached.send(request(.post))  // not looked up
            var other = request()
            other.url = URL(string: "https://api.example.com/other")!
            _ = try await cached.send(other)  // miss, stored to be revalidated
            _ = try await cached.send(other)  // revalidated (304)
            for (result, count) in [("miss", 2), ("hit", 1), ("revalidated", 1)] {
                #expect(
                    try metrics.expectCounter("sluice_http_client_cache_total", [("result", result), ("host", "api.example.com")]).totalValue == count,
                    "\(result)")
            }
        }

        @Test func callsWithTheSameDimensionsAddUpAndManyHostsAreEachCounted() async throws {
            let pipeline = Pipeline(
                middlewares: [MetricsMiddleware(configuration: .init(factory: metrics))], transport: MockTransport { _, _ in .status(.ok) })
            for host in (0..<1_030).map({ "h\($0).example" }) + ["h0.example", "h1029.example"] {
                _ = try await pipeline.send(HTTPRequest(url: URL(string: "https://\(host)/")!))
            }
            for (host, calls) in [("h0.example", 2), ("h500.example", 1), ("h1029.example", 2)] {
                let requests = try metrics.expectCounter(
                    "sluice_http_client_requests_total",
                    [("method", "GET"), ("status_class", "2xx"), ("host", host), ("operation", ""), ("source", "network")])
                #expect(requests.totalValue == Int64(calls), "\(host)")
            }
        }

        @Test func retriesAreCountedPerAttemptAfterTheFirst() async throws {
            _ = try await pipeline([.status(503), .status(503), .status(.ok)], retry: true).send(request())
            #expect(try metrics.expectCounter("sluice_http_client_retries_total", [("host", "api.example.com"), ("operation", "listUsers")]).totalValue == 2)
        }

        /// A hedged copy is counted as a hedge, not as a retry: the first copy hangs until it is
        /// cancelled, the hedge answers.
        @Test func aHedgeIsCountedAsAHedgeNotARetry() async throws {
            let transport = MockTransport { _, context in
                if !context.isHedge { try await Task.sleep(for: .seconds(60)) }
                return .status(.ok, body: "hedge")
            }
            let pipeline = Pipeline(
                middlewares: [
                    MetricsMiddleware(configuration: .init(factory: metrics)),
                    HedgingMiddleware(configuration: .init(delay: .fixed(.milliseconds(10)), maxExtraRatio: 1)),
                ], transport: transport)
            let response = try await pipeline.send(request())
            #expect(response.text == "hedge")
            #expect(response.hedges == 1 && response.attempts == 1)
            #expect(try metrics.expectCounter("sluice_http_client_hedges_total", [("host", "api.example.com"), ("operation", "listUsers")]).totalValue == 1)
            #expect(!metrics.counters.contains { $0.label == "sluice_http_client_retries_total" }, "no retry, so no retries counted")
        }

        /// A module's own reported label, as the cache reports `hit` and `revalidated`.
        enum TierKey: ReportedAttachmentKey {
            static let defaultValue: String? = nil
            static let reportName = "tier"
            static func report(_ value: String?) -> ReportedValue? { value.map { .label($0) } }
        }

        /// Issue 43, item 4: metrics count what a module reports without knowing the module: a
        /// label by `result` and host, twice for two answers labelled alike; a response that only
        /// says where it came from (its `source`) adds to no such counter.
        @Test func aLabelAModuleReportsIsCountedByResult() async throws {
            var gold = HTTPResponse(status: .ok, body: Data("x".utf8))
            gold.attachments[TierKey.self] = "gold"
            var silver = gold
            silver.attachments[TierKey.self] = "silver"
            var fromCache = HTTPResponse(status: .ok, body: Data("x".utf8))
            fromCache.source = .cache
            let pipeline = pipeline([.response(gold), .response(silver), .response(gold), .response(fromCache)])
            for _ in 0..<4 { _ = try await pipeline.send(request()) }
            #expect(try metrics.expectCounter("sluice_http_client_tier_total", [("result", "gold"), ("host", "api.example.com")]).totalValue == 2)
            #expect(try metrics.expectCounter("sluice_http_client_tier_total", [("result", "silver"), ("host", "api.example.com")]).totalValue == 1)
            #expect(throws: (any Error).self) {
                try metrics.expectCounter("sluice_http_client_cache_total", [("result", "hit"), ("host", "api.example.com")])
            }
        }

        @Test func aFailureIsCountedAsFailed() async throws {
            _ = try? await pipeline([.error(SluiceError(.cannotConnect, "refused"))]).send(request())
            let failed = try metrics.expectCounter(
                "sluice_http_client_requests_total",
                [("method", "GET"), ("status_class", "failed"), ("host", "api.example.com"), ("operation", "listUsers"), ("source", "")])
            #expect(failed.totalValue == 1)
        }

        @Test func aStreamedBodyIsMeasuredWhenItHasBeenRead() async throws {
            var streamed = HTTPResponse(status: .ok)
            streamed.bodyStream = ResponseBodyStream(Data(repeating: 7, count: 3_000))
            let response = try await pipeline([.response(streamed)]).send(request())
            #expect(metrics.counters.isEmpty)  // nothing yet: the body is not read
            var total = 0
            for try await chunk in try #require(response.bodyStream) { total += chunk.count }
            #expect(total == 3_000)
            #expect(try metrics.expectCounter("sluice_http_client_response_body_bytes_total", [("host", "api.example.com")]).totalValue == 3_000)
        }

        /// Issue 41, item 8: the answer came, so a body let go before its end is counted with its
        /// status class, as the log line keeps its status.
        @Test func aStreamedBodyLetGoBeforeItsEndKeepsItsStatusClass() async throws {
            var streamed = HTTPResponse(status: .serviceUnavailable)
            streamed.bodyStream = ResponseBodyStream(pull: { Data("more".utf8) })  // never ends
            var response: HTTPResponse? = try await pipeline([.response(streamed)]).send(request())
            #expect(try await response?.bodyStream?.next() == Data("more".utf8))
            response = nil
            let counted = try metrics.expectCounter(
                "sluice_http_client_requests_total",
                [("method", "GET"), ("status_class", "5xx"), ("host", "api.example.com"), ("operation", "listUsers"), ("source", "network")])
            #expect(counted.totalValue == 1)
        }

        /// Issue 41, item 8: a call past its deadline is `failed` whichever stage noticed: the
        /// client's watchdog (a cancellation below) or the transport's own timer.
        @Test(arguments: [false, true])
        func aCallPastItsDeadlineIsFailed(transportNoticesFirst: Bool) async throws {
            let transport = MockTransport { _, context in
                if transportNoticesFirst {
                    try await Task.sleep(until: try #require(context.deadline), clock: .continuous)
                    try? await Task.sleep(for: .milliseconds(5))
                    throw SluiceError(.timedOut, "Operation timed out", stage: .transport(MockTransport.self))
                }
                try await Task.sleep(for: .seconds(600))
                return .status(.ok)
            }
            let client = Client(transport: transport, middlewares: [MetricsMiddleware(configuration: .init(factory: metrics))])
            await #expect {
                _ = try await client.send(request(), timeout: .milliseconds(200))
            } throws: { ($0 as? SluiceError)?.code == .timedOut && ($0 as? SluiceError)?.stage == .client }
            let failed = try metrics.expectCounter(
                "sluice_http_client_requests_total",
                [("method", "GET"), ("status_class", "failed"), ("host", "api.example.com"), ("operation", "listUsers"), ("source", "")])
            #expect(failed.totalValue == 1)
        }

        /// Issue 44, item 4: each phase of the transfer that answered, by host, and the queue
        /// before it; nothing for an answer from the cache.
        @Test func eachPhaseOfTheTransferIsTimedByHost() async throws {
            var answer = HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=60"])
            answer.metrics = TransferMetrics(
                nameLookup: .milliseconds(4), connect: .milliseconds(10), tlsHandshake: .milliseconds(25), firstByte: .milliseconds(70),
                total: .milliseconds(90))
            let reply = answer
            let transport = MockTransport { _, _ in
                try await Task.sleep(for: .milliseconds(120))  // longer than the transfer's 90 ms: the rest is queue
                return .response(reply)
            }
            let cached = Pipeline(
                middlewares: [MetricsMiddleware(configuration: .init(factory: metrics)), CacheMiddleware(store: MemoryCacheStore())], transport: transport)
            _ = try await cached.send(request())
            _ = try await cached.send(request())  // from the cache: no phase
            let expected: [(String, Duration)] = [
                ("dns", .milliseconds(4)), ("connect", .milliseconds(6)), ("tls", .milliseconds(15)), ("first_byte", .milliseconds(45)),
                ("transfer", .milliseconds(20)),
            ]
            for (phase, duration) in expected {
                let timer = try metrics.expectTimer("sluice_http_client_phase_duration", [("phase", phase), ("host", "api.example.com")])
                #expect(timer.values == [duration.wholeNanoseconds], "\(phase)")
            }
            let queue = try metrics.expectTimer("sluice_http_client_phase_duration", [("phase", "queue"), ("host", "api.example.com")])
            #expect(queue.values.count == 1)
            #expect(queue.values.allSatisfy { $0 >= Duration.milliseconds(30).wholeNanoseconds }, "\(queue.values)")
        }

        /// Issue 44, item 4: with no backend bootstrapped, nothing is measured: the builder leaves
        /// the middleware out, and one in a pipeline passes calls straight on.
        @Test func withNoBackendNothingIsMeasured() async throws {
            let idle = MetricsMiddleware(configuration: .init(factory: NOOPMetricsHandler.instance))
            #expect(idle.configured(by: [:]) == nil)
            #expect(MetricsMiddleware(configuration: .init(factory: metrics)).configured(by: [:]) != nil)
            var builder = Client.Builder(transport: MockTransport { _, _ in .status(.ok) })
            builder.add(idle)
            #expect(!builder.build().pipeline.description.contains("MetricsMiddleware"))
            let response = try await Pipeline(middlewares: [idle], transport: MockTransport(replies: [.status(.ok, body: "as is")])).send(request())
            #expect(response.text == "as is")
        }
    }
#endif
