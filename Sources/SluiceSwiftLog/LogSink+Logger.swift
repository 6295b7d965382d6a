#if SwiftLog
    import Logging
    import Sluice
    import SluiceLogging

    extension LogSink {
        /// A sink that writes each call to a swift-log `Logger`: the line `LoggingMiddleware`
        /// writes as the message (secrets hidden as in every other sink), and the call's values as
        /// metadata, named as OpenTelemetry's HTTP conventions name them where they have a name:
        ///
        /// | key | value |
        /// |---|---|
        /// | `http.request.method` | `GET` |
        /// | `url.full` | the URL, redacted |
        /// | `http.response.status_code` | `200` |
        /// | `sluice.duration_ms` | `12.345` |
        /// | `sluice.source` | `network`, `cache`, `revalidated`… |
        /// | `sluice.<name>` | what a module attached and reports: `sluice.retries` (`2`), `sluice.hedges`, `sluice.cache` (`hit`) |
        /// | `sluice.request_id` | the call's `RequestContext.requestID` |
        /// | `sluice.operation` | `HTTPRequest.operationName`, when set |
        /// | `sluice.outcome` | `ok`, `failed` or `cancelled` |
        /// | `error.type` | the `SluiceError` code of a failure |
        /// | `sluice.stage` | the stage a failure came from |
        ///
        /// A failed call is logged at `.error`. Any other is logged at the swift-log level of the
        /// logger's detail (`LogLevel.basic` at `.info`, `LogLevel.headers` at `.debug`,
        /// `LogLevel.body` at `.trace`), but never below `logger`'s own level while that is
        /// `.info` or lower: so `SLUICE_LOG=body` shows bodies through a `Logger` at `.info`.
        /// Records the `Logger` would drop are not rendered.
        ///
        /// ```swift
        /// import Logging
        /// import SluiceLogging
        /// import SluiceSwiftLog
        ///
        /// let logger = Logger(label: "com.example.api")
        /// let logging = LoggingMiddleware(level: .basic, sink: .logger(logger))
        /// ```
        public static func logger(_ logger: Logger) -> LogSink {
            LogSink(
                entries: LogEntrySink(
                    wants: { level, failure in logger.logLevel <= Self.swiftLogLevel(of: level, failure: failure, for: logger) },
                    write: { entry in
                        logger.log(
                            level: Self.swiftLogLevel(of: entry.level, failure: entry.outcome == .failed, for: logger),
                            "\(entry.text)", metadata: Self.metadata(entry), source: "Sluice")
                    }))
        }

        /// The swift-log level a record of `level` is written at.
        package static func swiftLogLevel(of level: LogLevel, failure: Bool, for logger: Logger) -> Logger.Level {
            if failure { return .error }
            let detail: Logger.Level = level >= .body ? .trace : level >= .headers ? .debug : .info
            return max(detail, min(logger.logLevel, .info))
        }

        static func metadata(_ entry: LogEntry) -> Logger.Metadata {
            var metadata: Logger.Metadata = [
                "http.request.method": "\(entry.method)",
                "url.full": "\(entry.url)",
                "sluice.duration_ms": "\((entry.milliseconds * 1000).rounded() / 1000)",
                "sluice.request_id": "\(entry.requestID)",
                "sluice.outcome": "\(entry.outcome.rawValue)",
            ]
            if let status = entry.status { metadata["http.response.status_code"] = "\(status)" }
            for (name, value) in entry.reported {
                switch value {
                case .count(let count): metadata["sluice." + name] = "\(count)"
                case .flag(let flag): metadata["sluice." + name] = "\(flag)"
                case .label(let label): metadata["sluice." + name] = "\(label)"
                }
            }
            if let source = entry.source { metadata["sluice.source"] = "\(source)" }
            if let operation = entry.operation { metadata["sluice.operation"] = "\(operation)" }
            if let code = entry.errorCode { metadata["error.type"] = "\(code)" }
            if let stage = entry.stage { metadata["sluice.stage"] = "\(stage)" }
            return metadata
        }
    }

    extension LoggingMiddleware {
        /// A logging middleware that writes to `logger` (see `LogSink.logger(_:)`)
        /// as much as the logger's level shows: `LogLevel.body` at `.trace`, `LogLevel.headers`
        /// at `.debug`, `LogLevel.basic` at `.info` and above (above `.info` only failures pass
        /// the `Logger`). `SLUICE_LOG` still changes the level when the client is built.
        /// `redaction` is what records hide beside each request's own policy (the client's), as
        /// in `LoggingMiddleware.Configuration.redaction`: a stage may hide more, never less.
        ///
        /// ```swift
        /// import Logging
        /// import Sluice
        /// import SluiceCurl
        /// import SluiceLogging
        /// import SluiceSwiftLog
        ///
        /// var logger = Logger(label: "com.example.api")
        /// logger.logLevel = .debug                       // the fields of each call too
        /// var builder = Client.Builder(transport: CurlTransport())
        /// builder.add(LoggingMiddleware(logger: logger))
        /// ```
        public init(logger: Logger, redaction: Redaction = .default, format: LogFormat = .text) {
            let level: LogLevel =
                switch logger.logLevel {
                case .trace: .body
                case .debug: .headers
                default: .basic
                }
            self.init(level: level, sink: .logger(logger), redaction: redaction, format: format)
        }
    }
#else
    #warning("SluiceSwiftLog is empty: turn on the package trait \"SwiftLog\" where you depend on Sluice")
#endif
