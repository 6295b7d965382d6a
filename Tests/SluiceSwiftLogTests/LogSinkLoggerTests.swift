#if SwiftLog
    import Foundation
    import Logging
    import Sluice
    import SluiceLogging
    import SluiceSwiftLog
    import SluiceTesting
    import Synchronization
    import Testing

    /// A swift-log handler that keeps what reaches it.
    struct CapturingHandler: LogHandler {
        struct Entry: Sendable {
            let level: Logger.Level
            let message: String
            let metadata: [String: String]
            let source: String
        }

        final class Store: Sendable {
            let entries = Mutex<[Entry]>([])
        }

        let store: Store
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let metadata = (event.metadata ?? [:]).mapValues { "\($0)" }
            store.entries.withLock {
                $0.append(Entry(level: event.level, message: "\(event.message)", metadata: metadata, source: event.source))
            }
        }
    }

    @Suite struct LogSinkLoggerTests {
        let store = CapturingHandler.Store()

        func logger(_ level: Logger.Level) -> Logger {
            var logger = Logger(label: "test") { [store] _ in CapturingHandler(store: store, logLevel: level) }
            logger.logLevel = level
            return logger
        }

        func request() -> HTTPRequest {
            var request = HTTPRequest(
                url: URL(string: "https://api.example.com/users?token=t0k3n")!, headers: ["Authorization": "Bearer abc123"])
            request.operationName = "listUsers"
            return request
        }

        @Test func aCallIsOneInfoRecordWithItsValuesAsMetadata() async throws {
            let harness = MiddlewareHarness(
                LoggingMiddleware(logger: logger(.info)), replies: [.status(.ok, headers: ["Content-Type": "text/plain"], body: "hello")])
            _ = try await harness.send(request())
            let entries = store.entries.withLock { $0 }
            #expect(entries.count == 1)
            let entry = try #require(entries.first)
            #expect(entry.level == .info)
            #expect(entry.source == "Sluice")
            #expect(entry.message.hasPrefix("GET https://api.example.com/users?token=<redacted> (listUsers) -> 200 OK, 5 B, "))
            #expect(entry.metadata["http.request.method"] == "GET")
            #expect(entry.metadata["url.full"] == "https://api.example.com/users?token=<redacted>")
            #expect(entry.metadata["http.response.status_code"] == "200")
            #expect(entry.metadata["sluice.retries"] == nil && entry.metadata["sluice.attempts"] == nil)
            #expect(entry.metadata["sluice.source"] == "network")
            #expect(entry.metadata["sluice.operation"] == "listUsers")
            #expect(entry.metadata["sluice.outcome"] == "ok")
            #expect(entry.metadata["sluice.request_id"].flatMap(UInt64.init) != nil)
            #expect(entry.metadata["sluice.duration_ms"].flatMap(Double.init) != nil)
            #expect(entry.metadata["error.type"] == nil)
        }

        /// A module's own reported facts, as retry reports `retries` and the cache `cache`.
        enum TierKey: ReportedAttachmentKey {
            static let defaultValue: String? = nil
            static let reportName = "tier"
            static func report(_ value: String?) -> ReportedValue? { value.map { .label($0) } }
        }

        enum FailoversKey: ReportedAttachmentKey {
            static let defaultValue = 0
            static let reportName = "failovers"
            static func report(_ value: Int) -> ReportedValue? { value > 0 ? .count(value) : nil }
        }

        /// Issue 43, item 4: what modules attach and report is metadata `sluice.<name>` and part of
        /// the message, without the sink knowing the modules.
        @Test func whatModulesReportIsMetadata() async throws {
            var answer = HTTPResponse(status: .ok, body: Data("hello".utf8))
            answer.attachments[TierKey.self] = "gold"
            answer.attachments[FailoversKey.self] = 2
            let harness = MiddlewareHarness(LoggingMiddleware(logger: logger(.info)), replies: [.response(answer)])
            _ = try await harness.send(request())
            let entry = try #require(store.entries.withLock { $0 }.first)
            #expect(entry.metadata["sluice.tier"] == "gold")
            #expect(entry.metadata["sluice.failovers"] == "2")
            #expect(entry.message.hasSuffix(", network, tier gold, failovers 2"), "\(entry.message)")
        }

        /// Issue 41, item 6: a reason phrase and a field value with U+2028, U+2029, NEL and a
        /// bidirectional control reach the handler escaped: one record stays one line.
        @Test func lineBreakingScalarsFromAServerReachTheHandlerEscaped() async throws {
            let harness = MiddlewareHarness(
                LoggingMiddleware(logger: logger(.trace)),
                replies: [
                    .status(
                        HTTPStatus(code: 200, reasonPhrase: "OK\u{2028}forged: line"), headers: ["X-Note": "a\u{2029}b\u{85}c\u{202E}d"],
                        body: "hello")
                ])
            _ = try await harness.send(request())
            let text = store.entries.withLock { $0.map { $0.message + $0.metadata.values.joined() }.joined() }
            #expect(!text.isEmpty)
            for scalar: Unicode.Scalar in ["\u{2028}", "\u{2029}", "\u{85}", "\u{202E}"] { #expect(!text.unicodeScalars.contains(scalar)) }
            #expect(text.contains(#"OK\u{2028}forged: line"#))
        }

        @Test func theLoggersLevelDecidesTheDetailAndNoSecretReachesTheHandler() async throws {
            // The server echoes the token and the bearer credential, as httpbin's /anything does.
            let echo = #"{"headers":{"Authorization":"Bearer abc123"},"url":"https://api.example.com/users?token=t0k3n"}"#
            let harness = MiddlewareHarness(
                LoggingMiddleware(logger: logger(.trace)), replies: [.status(.ok, headers: ["Content-Type": "application/json"], body: echo)])
            _ = try await harness.send(request())
            let entry = try #require(store.entries.withLock { $0.first })
            #expect(entry.level == .trace)
            #expect(entry.message.contains("\n< Content-Type: application/json"))
            #expect(entry.message.contains("\n> Authorization: "))
            for secret in ["abc123", "t0k3n"] {
                #expect(!entry.message.contains(secret))
                #expect(!entry.metadata.values.contains { $0.contains(secret) })
            }
        }

        @Test func sluiceLogShowsMoreThroughALoggerAtInfo() async throws {
            let configured = try #require(LoggingMiddleware(logger: logger(.info)).configured(by: ["SLUICE_LOG": "headers"]))
            _ = try await MiddlewareHarness(configured, replies: [.status(.ok, body: "x")]).send(request())
            let entry = try #require(store.entries.withLock { $0.first })
            #expect(entry.level == .info)
            #expect(entry.message.contains("\n> Authorization: "))
        }

        @Test func aFailureIsAnErrorWithItsCodeAndStageAndALoggerAboveInfoGetsOnlyFailures() async throws {
            let middleware = LoggingMiddleware(logger: logger(.warning))
            _ = try await MiddlewareHarness(middleware, replies: [.status(.ok, body: "x")]).send(request())
            #expect(store.entries.withLock { $0.isEmpty })
            let failing = MiddlewareHarness(middleware, replies: [.error(SluiceError(.timedOut, "too slow"))])
            _ = try? await failing.send(request())
            let entry = try #require(store.entries.withLock { $0.first })
            #expect(entry.level == .error)
            #expect(entry.metadata["error.type"] == "timedOut")
            #expect(entry.metadata["sluice.stage"] == "transport MockTransport")
            #expect(entry.metadata["sluice.outcome"] == "failed")
        }
    }
#endif
