#if Tracing
    import Foundation
    import InMemoryTracing
    import Sluice
    import SluiceCurl
    import SluiceResilience
    import SluiceRetry
    import SluiceTestSupport
    import SluiceTesting
    import SluiceTracing
    import Testing
    import Tracing

    /// swift-distributed-tracing's in-memory tracer, propagating its span context in one field
    /// whose value `format` writes: a W3C `traceparent` for the real server, or a bad value.
    struct PropagatingTracer: Tracer {
        let inner: InMemoryTracer
        let field: String
        let format: @Sendable (InMemorySpanContext) -> String

        init(field: String = "traceparent", format: @escaping @Sendable (InMemorySpanContext) -> String = Self.traceparent) {
            @Sendable func hex(_ bytes: Int) -> String {
                (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            }
            inner = InMemoryTracer(idGenerator: .init(nextTraceID: { hex(16) }, nextSpanID: { hex(8) }))
            self.field = field
            self.format = format
        }

        static let traceparent: @Sendable (InMemorySpanContext) -> String = { "00-\($0.traceID)-\($0.spanID)-01" }

        func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
            function: String, file fileID: String, line: UInt
        ) -> InMemorySpan {
            inner.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
        }

        func activeSpan(identifiedBy context: ServiceContext) -> InMemorySpan? { inner.activeSpan(identifiedBy: context) }
        func forceFlush() {}

        func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
        where Carrier == Inject.Carrier {
            guard let span = context.inMemorySpanContext else { return }
            injector.inject(format(span), forKey: field, into: &carrier)
        }

        func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
        where Carrier == Extract.Carrier {}
    }

    @Suite struct TracingMiddlewareTests {
        let tracer = PropagatingTracer()

        func client(_ transport: any HTTPTransport, retry: Bool = false) -> Client {
            var builder = Client.Builder(transport: transport)
            builder.addTracing(.init(tracer: tracer))
            if retry { builder.add(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(1))))) }
            return builder.build()
        }

        var spans: [FinishedInMemorySpan] { tracer.inner.finishedSpans }

        @Test func aRetriedCallIsOneSpanWithASpanPerAttemptEachSentToTheServer() async throws {
            let transport = MockTransport(replies: [.status(503), .status(.ok, body: "ok")])
            var request = HTTPRequest(url: URL(string: "https://api.example.com:8443/users?token=T0K3N")!)
            request.operationName = "listUsers"
            let response = try await client(transport, retry: true).send(request)
            #expect(response.status == .ok)

            let call = try #require(spans.first { $0.parentSpanID == nil })
            let attempts = spans.filter { $0.parentSpanID == call.spanID }
            #expect(spans.count == 3)
            #expect(call.operationName == "listUsers")
            #expect(call.kind == .client)
            #expect(call.attributes["http.request.method"]?.toSpanAttribute() == "GET")
            #expect(call.attributes["url.full"]?.toSpanAttribute() == "https://api.example.com:8443/users?token=<redacted>")
            #expect(call.attributes["server.address"]?.toSpanAttribute() == "api.example.com")
            #expect(call.attributes["server.port"]?.toSpanAttribute() == 8443)
            #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
            #expect(call.attributes["sluice.retries"]?.toSpanAttribute() == 1)
            #expect(call.status == nil)
            #expect(attempts.map { $0.attributes["http.response.status_code"]?.toSpanAttribute() } == [503, 200])
            #expect(attempts.map { $0.attributes["http.request.resend_count"]?.toSpanAttribute() } == [nil, 1])
            #expect(attempts.first?.status?.code == .error)

            // Each attempt carried its own span's context to the server.
            let sent = transport.requests.map { $0.request.headers["traceparent"] }
            #expect(sent == attempts.map { "00-\($0.traceID)-\($0.spanID)-01" })
        }

        /// A hedged copy is a span of its own beside the first copy's, marked as a hedge (not as a
        /// resend), and sends its own context; the call's span counts the hedge. The copy the
        /// server holds (the first to arrive) is cancelled when the other wins. Which copy arrives
        /// first is the server's to tell, not the clock's: on a slow build (make test-asan) the
        /// hedge can reach it before the first copy does (issue 53, item 13).
        @Test func aHedgedCopyIsASpanOfItsOwnMarkedAsAHedge() async throws {
            let server = try MockWebServer()
            let held = TestGate()
            defer { held.open() }
            let seen = Locked(0)
            server.setHandler { _ in
                let copy = seen.withLock { count -> Int in
                    count += 1
                    return count
                }
                if copy == 1 { held.wait(timeout: .seconds(30)) }
                return .init(status: 200, body: "copy \(copy)")
            }
            var builder = Client.Builder(transport: CurlTransport())
            builder.addTracing(.init(tracer: tracer))
            builder.add(HedgingMiddleware(configuration: .init(delay: .fixed(.milliseconds(50)), maxExtraRatio: 1)))
            let response = try await builder.build().send(HTTPRequest(url: server.url("/x")))
            #expect(response.text == "copy 2")
            held.open()
            try await Wait.until("the call's span and both copies' spans ended") { spans.count == 3 }

            let call = try #require(spans.first { $0.parentSpanID == nil })
            #expect(call.attributes["sluice.hedges"]?.toSpanAttribute() == 1)
            #expect(call.attributes["sluice.retries"] == nil, "a hedge is not a retry")
            let copies = spans.filter { $0.parentSpanID == call.spanID }
            #expect(copies.count == 2)
            let hedge = try #require(copies.first { $0.attributes["sluice.hedge"]?.toSpanAttribute() == true })
            #expect(copies.filter { $0.attributes["sluice.hedge"] == nil }.count == 1, "one first copy, one hedge")
            #expect(hedge.attributes["http.request.resend_count"] == nil)
            // The server held the first request to arrive and answered the second.
            let traceparents = server.requests.map { $0.header("traceparent") }
            let waited = try #require(copies.first { "00-\($0.traceID)-\($0.spanID)-01" == traceparents.first })
            let answered = try #require(copies.first { "00-\($0.traceID)-\($0.spanID)-01" == traceparents.last })
            #expect(waited.spanID != answered.spanID, "each copy sends its own context")
            #expect(answered.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
            #expect(waited.attributes["error.type"]?.toSpanAttribute() == "cancelled")
        }

        @Test func theURLAttributeHidesWhatTheClientsPolicyNames() async throws {
            var builder = Client.Builder(
                transport: MockTransport(replies: [.status(.ok)]), configuration: .init(redaction: Redaction.default.adding(parameters: ["pin"])))
            builder.addTracing(.init(tracer: tracer))
            _ = try await builder.build().send(HTTPRequest(url: URL(string: "https://api.example.com/pay?pin=1234&token=T")!))
            let call = try #require(spans.first { $0.parentSpanID == nil })
            #expect(call.attributes["url.full"]?.toSpanAttribute() == "https://api.example.com/pay?pin=<redacted>&token=<redacted>")
        }

        @Test func eachRedirectHopIsASpanOfItsOwn() async throws {
            let transport = MockTransport(replies: [
                .status(.found, headers: ["Location": "https://api.example.com/new"]), .status(.ok),
            ])
            _ = try await client(transport).send(HTTPRequest(url: URL(string: "https://api.example.com/old")!))
            let call = try #require(spans.first { $0.parentSpanID == nil })
            let hops = spans.filter { $0.parentSpanID == call.spanID }
            #expect(hops.map { $0.attributes["url.full"]?.toSpanAttribute() } == ["https://api.example.com/old", "https://api.example.com/new"])
            #expect(hops.map { $0.attributes["http.response.status_code"]?.toSpanAttribute() } == [302, 200])
        }

        @Test func aFailureIsRecordedWithItsCodeAndStage() async throws {
            let transport = MockTransport(replies: [.error(SluiceError(.cannotConnect, "refused"))])
            _ = try? await client(transport).send(HTTPRequest(url: URL(string: "https://api.example.com/")!))
            #expect(spans.count == 2)
            for span in spans {
                #expect(span.status?.code == .error)
                #expect(span.attributes["error.type"]?.toSpanAttribute() == "cannotConnect")
                #expect(span.attributes["sluice.stage"]?.toSpanAttribute() == "transport MockTransport")
                #expect(span.errors.count == 1)
            }
        }

        @Test func aStreamedCallsSpanEndsWhenItsBodyHasBeenRead() async throws {
            var streamed = HTTPResponse(status: .ok)
            streamed.bodyStream = ResponseBodyStream(Data(repeating: 1, count: 100))
            let response = try await client(MockTransport(replies: [.response(streamed)])).send(HTTPRequest(url: URL(string: "https://a.example/")!))
            #expect(spans.isEmpty)
            for try await _ in try #require(response.bodyStream) {}
            #expect(spans.count == 2)
        }

        /// Issue 41, item 8: the answer came, so the span ends with its status, as the log line
        /// and the metric keep it; no error.
        @Test func aStreamedCallsSpanEndsWithItsStatusWhenItsReaderLetsItGo() async throws {
            var streamed = HTTPResponse(status: .ok)
            streamed.bodyStream = ResponseBodyStream(pull: { Data("more".utf8) })  // never ends
            var response: HTTPResponse? = try await client(MockTransport(replies: [.response(streamed)])).send(
                HTTPRequest(url: URL(string: "https://a.example/")!))
            #expect(try await response?.bodyStream?.next() == Data("more".utf8))
            #expect(spans.isEmpty)
            response = nil
            #expect(spans.count == 2)
            #expect(spans.allSatisfy { $0.attributes["error.type"] == nil && $0.attributes["http.response.status_code"]?.toSpanAttribute() == 200 })
            #expect(tracer.inner.activeSpans.isEmpty)
        }

        /// Issue 41, item 8: a call the client's watchdog cut off at its deadline is `timedOut`
        /// in its spans, as in its error, its log line and its metric: not `cancelled`.
        @Test func aCallPastItsDeadlineIsTimedOutInItsSpans() async throws {
            let transport = MockTransport { _, _ in
                try await Task.sleep(for: .seconds(600))
                return .status(.ok)
            }
            await #expect {
                _ = try await client(transport).send(HTTPRequest(url: URL(string: "https://a.example/")!), timeout: .milliseconds(200))
            } throws: { ($0 as? SluiceError)?.code == .timedOut }
            try await Wait.until("both spans ended") { spans.count == 2 }
            #expect(spans.allSatisfy { $0.attributes["error.type"]?.toSpanAttribute() == "timedOut" })
        }

        @Test func aFieldTheTracerInjectsThatSluiceRefusesIsAnError() async throws {
            let bad = PropagatingTracer(field: "traceparent") { _ in "00-a\n-b" }
            var builder = Client.Builder(transport: MockTransport(replies: [.status(.ok)]))
            builder.addTracing(.init(tracer: bad))
            let error = await #expect(throws: SluiceError.self) {
                try await builder.build().send(HTTPRequest(url: URL(string: "https://a.example/")!))
            }
            #expect(error?.code == .invalidHeader)
            #expect(
                error?.message
                    == #"the tracer injected a field Sluice refuses: value of header "traceparent" has LF (0x0A) at byte 4; CR, LF and NUL are never allowed in header fields"#
            )
        }

        @Test func withoutATracerTheBuilderLeavesThemOutAndByHandACallPassesThroughUntouched() async throws {
            let transport = MockTransport(replies: [.status(.ok)])
            var builder = Client.Builder(transport: transport)
            builder.addTracing()  // nothing bootstrapped: the no-op instrument
            #expect(!builder.resolvedMiddlewares.contains { $0 is TracingMiddleware || $0 is AttemptTracingMiddleware })
            var traced = Client.Builder(transport: transport)
            traced.addTracing(.init(tracer: tracer))
            #expect(traced.resolvedMiddlewares.filter { $0 is TracingMiddleware || $0 is AttemptTracingMiddleware }.count == 2)

            let byHand = Pipeline(middlewares: [TracingMiddleware(), AttemptTracingMiddleware()], transport: transport)
            _ = try await byHand.send(HTTPRequest(url: URL(string: "https://a.example/")!, headers: ["Accept": "text/plain"]))
            #expect(transport.requests.first?.request.headers.map(\.name) == ["Accept"])
        }

        @Test func httpbinSeesTheAttemptsTraceparent() async throws {
            let response = try await client(CurlTransport()).send(HTTPRequest(url: try InteropServers.httpbin("/headers")))
            let echo = try JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]]
            let attempt = try #require(spans.first { $0.parentSpanID != nil })
            #expect(echo?["headers"]?["Traceparent"] == "00-\(attempt.traceID)-\(attempt.spanID)-01")
        }

        /// Issue 44, item 4: the phases of the transfer that answered are events on the call's and
        /// the attempt's spans, in order, each where it ended, with its length.
        @Test func theTransfersPhasesAreSpanEvents() async throws {
            var answer = HTTPResponse(status: .ok)
            answer.metrics = TransferMetrics(
                nameLookup: .milliseconds(4), connect: .milliseconds(10), tlsHandshake: .milliseconds(25), firstByte: .milliseconds(70),
                total: .milliseconds(90))
            let reply = answer
            _ = try await client(MockTransport { _, _ in .response(reply) }).send(HTTPRequest(url: URL(string: "https://api.example.com/x")!))
            #expect(spans.count == 2)
            for span in spans {
                #expect(span.events.map(\.name) == ["sluice.dns", "sluice.connect", "sluice.tls", "sluice.first_byte", "sluice.transfer"])
                #expect(span.events.map { $0.attributes["sluice.duration_ns"]?.toSpanAttribute() } == [4, 6, 15, 45, 20].map { .int64($0 * 1_000_000) })
                let times = span.events.map(\.nanosecondsSinceEpoch)
                #expect(zip(times, times.dropFirst()).map { $1 - $0 } == [6, 15, 45, 20].map { UInt64($0) * 1_000_000 })
                #expect(times.last! <= span.endInstant.nanosecondsSinceEpoch)
            }
        }
    }
#endif
