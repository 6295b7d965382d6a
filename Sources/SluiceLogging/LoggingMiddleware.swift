import Foundation
import Sluice
import Synchronization

/// Debug logging for every call: one line at ``LogLevel/basic``, headers and bodies above it,
/// secrets redacted by default, as text or JSON lines, to standard error, a file or a closure.
///
/// Turn it on and off without changing code: add it once, and `SLUICE_LOG=off|basic|headers|body`
/// decides its level when the `Client.Builder` builds the client (`off` leaves it out of
/// the chain). In release builds the environment is ignored unless
/// ``Configuration/honoursEnvironmentInRelease`` is set, so the default stays what the code says.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceLogging
///
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.add(LoggingMiddleware.fromEnvironment())      // off unless SLUICE_LOG says otherwise
/// // or always on while developing:
/// builder.add(LoggingMiddleware(level: .headers, sink: .standardError))
/// ```
///
/// Streamed request bodies are never read (their size is logged); response bodies written to a
/// file are logged as the file and its size. A cancelled call is logged as cancelled, not failed,
/// and a failure names the `SluiceError` code and the stage that raised it.
public struct LoggingMiddleware: Middleware, EnvironmentConfigurable {
    /// The level, where records go, what they hide, and their format.
    public struct Configuration: Sendable {
        /// How much each record says.
        public var level: LogLevel
        /// Where records go.
        public var sink: LogSink
        /// What records hide, beside the request's own policy (`HTTPRequest.redaction`,
        /// the client's), which is always added to it.
        public var redaction: Redaction
        /// Text or JSON lines.
        public var format: LogFormat
        /// The most body bytes shown per body at ``LogLevel/body``; 0 or less shows none.
        public var bodyLimit: Int
        /// Let `SLUICE_LOG` change the level in release builds too.
        public var honoursEnvironmentInRelease: Bool
        /// A monotonic clock for the call's duration (injectable for exact output in tests).
        public var now: @Sendable () -> Duration

        /// Settings with each value given, or its default.
        public init(
            level: LogLevel = .basic, sink: LogSink = .standardError, redaction: Redaction = .default,
            format: LogFormat = .text, bodyLimit: Int = 16_384, honoursEnvironmentInRelease: Bool = false,
            now: @escaping @Sendable () -> Duration = Configuration.monotonicClock
        ) {
            self.level = level
            self.sink = sink
            self.redaction = redaction
            self.format = format
            self.bodyLimit = bodyLimit
            self.honoursEnvironmentInRelease = honoursEnvironmentInRelease
            self.now = now
        }

        /// Time since the first use, from `ContinuousClock`: the default for ``now``.
        public static let monotonicClock: @Sendable () -> Duration = {
            let origin = ContinuousClock.now
            return { ContinuousClock.now - origin }
        }()

        /// `.basic` text to standard error, redaction on, bodies up to 16 KiB.
        public static let `default` = Configuration()
    }

    /// The environment variable read by ``fromEnvironment(_:sink:redaction:format:honoursEnvironmentInRelease:)`` and the builder.
    public static let environmentVariable = "SLUICE_LOG"
    public static let defaultPosition = MiddlewarePosition.logging

    /// How it behaves.
    public let configuration: Configuration

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// A logger at `level` writing to `sink`.
    public init(level: LogLevel, sink: LogSink = .standardError, redaction: Redaction = .default, format: LogFormat = .text) {
        self.init(configuration: Configuration(level: level, sink: sink, redaction: redaction, format: format))
    }

    /// A logger at the level `SLUICE_LOG` names, or ``LogLevel/none`` when it is unset (and in
    /// release builds, unless `honoursEnvironmentInRelease`). An unknown value leaves it off and
    /// writes one line to the sink saying so.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        sink: LogSink = .standardError, redaction: Redaction = .default, format: LogFormat = .text,
        honoursEnvironmentInRelease: Bool = false
    ) -> LoggingMiddleware {
        let off = LoggingMiddleware(
            configuration: Configuration(
                level: .none, sink: sink, redaction: redaction, format: format,
                honoursEnvironmentInRelease: honoursEnvironmentInRelease))
        return off.configured(environment) ?? off
    }

    /// `SLUICE_LOG` applied at build time; `nil` (left out of the chain) when it turns logging off.
    public func configured(by environment: [String: String]) -> (any Middleware)? {
        let configured = self.configured(environment) ?? self
        return configured.configuration.level == .none ? nil : configured
    }

    /// The bad `SLUICE_LOG` values warned about so far in this process.
    static let warnedValues = Locked(Set<String>())

    #if DEBUG
        static let isReleaseBuild = false
    #else
        static let isReleaseBuild = true
    #endif

    /// This logger at the environment's level, or `nil` when the environment does not apply. In a
    /// release build that does not honour it, `SLUICE_LOG` is ignored, and `notice` says so once.
    func configured(
        _ environment: [String: String], isReleaseBuild: Bool = Self.isReleaseBuild, notice: OnceNotice = .releaseBuild
    ) -> LoggingMiddleware? {
        guard let value = environment[Self.environmentVariable] else { return nil }
        if isReleaseBuild, !configuration.honoursEnvironmentInRelease {
            notice.say(
                "sluice: \(Self.environmentVariable)=\(value.escapingControlCharacters()) is ignored in a release build; to allow it, "
                    + "create the logger with honoursEnvironmentInRelease: true")
            return nil
        }
        guard let level = LogLevel(name: value.trimmingCharacters(in: .whitespaces)) else {
            // Once per value and process: a client built twice (or a builder asked twice) does
            // not repeat it.
            if Self.warnedValues.withLock({ $0.insert(value).inserted }) {
                configuration.sink.write(
                    "sluice: \(Self.environmentVariable)=\(value.escapingControlCharacters()) is not one of off, basic, headers, body; "
                        + "logging stays \(configuration.level)")
            }
            return nil
        }
        var copy = configuration
        copy.level = level
        return LoggingMiddleware(configuration: copy)
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard configuration.level > .none else { return try await next(request, context) }
        let start = configuration.now()
        do {
            var response = try await next(request, context)
            if let stream = response.bodyStream {
                // A streamed body: one entry when it has been read (or failed, or was let go before
                // its end), with the bytes the reader got. A body let go keeps its status: the
                // answer came (a generated client that ignores an undocumented 503's body, a 201
                // whose body nobody reads); only the deadline makes it a failure.
                let counted = Locked<Int64>(0)
                let head = response
                let trace = context.traceSoFar
                response.bodyStream = stream.observingEnd(
                    chunk: { chunk in counted.withLock { $0 += Int64(chunk.count) } },
                    finish: { [configuration] error in
                        let elapsed = configuration.now() - start
                        let failure = context.streamFailure(error, for: head.request ?? request)
                        let outcome: LogRecord.Outcome = failure.map { .failure($0) } ?? .response(head)
                        var record = LogRecord(request: head.request ?? request, outcome: outcome, elapsed: elapsed, trace: trace)
                        record.bodyLetGo = error != nil && failure == nil
                        record.streamedBytes = counted.withLock { $0 }
                        record.requestID = context.requestID
                        emit(record)
                    })
                return response
            }
            var record = LogRecord(
                request: response.request ?? request, outcome: .response(response),
                elapsed: configuration.now() - start, trace: context.traceSoFar)
            record.requestID = context.requestID
            emit(record)
            return response
        } catch {
            let sent = (error as? SluiceError)?.response?.request ?? request
            // Past the deadline, a cancellation and any stage's .timedOut are the deadline's one
            // .timedOut: one line, one level, one outcome, whichever stage noticed first.
            let recorded = context.recorded(error, for: sent)
            let cancelled = recorded is CancellationError || (Task.isCancelled && (recorded as? SluiceError)?.code != .timedOut)
            var record = LogRecord(
                request: sent, outcome: cancelled ? .cancelled : .failure(recorded),
                elapsed: configuration.now() - start, trace: nil)
            record.requestID = context.requestID
            emit(record)
            throw error
        }
    }

    /// Hands `record` to the sink: rendered, or as an entry with its fields beside the rendered
    /// text for a sink that takes entries (a swift-log `Logger`).
    /// The request's policy (`HTTPRequest.redaction`, the client's) is added to the
    /// logger's own redaction first, so a secret named once on the client is hidden here too.
    private func emit(_ record: LogRecord) {
        var configuration = self.configuration
        configuration.redaction = configuration.redaction.adding(record.request.redaction)
        guard let entries = configuration.sink.entries else { return configuration.sink.write(render(record, configuration)) }
        guard entries.wants(configuration.level, record.outcome.isFailure) else { return }
        entries.write(record.entry(configuration, text: render(record, configuration)))
    }

    /// The record as the configured format and level write it, with every secret value the
    /// request carried hidden wherever it appears: a server that echoes a token, a password or a
    /// signature (httpbin's `/anything` echoes them all) puts it in a body or a field the name
    /// rules do not cover.
    func render(_ record: LogRecord, _ configuration: Configuration) -> String {
        let text =
            switch configuration.format {
            case .text: record.text(configuration, colours: configuration.sink.isTerminal)
            case .jsonLines: record.jsonLine(configuration)
            }
        // A basic line holds the server's words only in a failure or an unusual reason phrase
        // (its URL is already redacted): the common line costs no search.
        let echoes: Bool =
            switch (configuration.level >= .headers, record.outcome) {
            case (true, _), (false, .failure): true
            case (false, .response(let response)): !response.status.hasStandardReasonPhrase
            case (false, .cancelled): false
            }
        guard echoes else { return text }
        let secrets = configuration.redaction.secretValues(of: record.request, body: configuration.level >= .body)
        return secrets.isEmpty ? text : secrets.masking(text)
    }
}

/// A line written at most once per process: the notice that `SLUICE_LOG` is ignored in a
/// release build.
final class OnceNotice: Sendable {
    private let said = Atomic<Bool>(false)
    private let write: @Sendable (String) -> Void

    init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Writes `line` the first time only.
    func say(_ line: String) {
        guard !said.exchange(true, ordering: .relaxed) else { return }
        write(line)
    }

    /// On standard error.
    static let releaseBuild = OnceNotice(write: LogSink.standardError.write)
}
