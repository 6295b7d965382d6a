#if Tracing
    import Foundation
    import Sluice
    import Tracing

    extension Span {
        /// The request's attributes: its method, its URL as `redaction` shows it, its server.
        func describe(_ request: HTTPRequest, _ redaction: Redaction) {
            attributes["http.request.method"] = request.method.rawValue
            attributes["url.full"] = redaction.url(request.url)
            if let host = request.url.host { attributes["server.address"] = host }
            if let port = request.url.port { attributes["server.port"] = port }
            if let operation = request.operationName { attributes["sluice.operation"] = operation }
        }

        /// The answer's attributes; an error status for 400 and above; the transfer's phases as
        /// events.
        func answered(_ response: HTTPResponse) {
            attributes["http.response.status_code"] = response.status.code
            attributes["sluice.source"] = response.source.description
            report(response.attachments)
            if let metrics = response.metrics, response.source == .network { addPhases(metrics) }
            if response.status.code >= 400 {
                attributes["error.type"] = String(response.status.code)
                setStatus(SpanStatus(code: .error))
            }
        }

        /// An event `sluice.<phase>` where each phase of the transfer ended (`dns`, `connect`,
        /// `tls`, `first_byte`, `transfer`; see `TransferMetrics`), with its length in
        /// `sluice.duration_ns`. The transfer is taken to have started `total` before now, when
        /// the transport handed the answer over.
        func addPhases(_ metrics: TransferMetrics) {
            let now = DefaultTracerClock.now.nanosecondsSinceEpoch
            let start = now &- min(now, UInt64(clamping: metrics.total.wholeNanoseconds))
            for phase in metrics.phases {
                let at = PhaseInstant(nanosecondsSinceEpoch: start &+ UInt64(clamping: phase.end.wholeNanoseconds))
                addEvent(SpanEvent(name: "sluice." + phase.name, at: at, attributes: ["sluice.duration_ns": .int64(phase.duration.wholeNanoseconds)]))
            }
        }

        /// What modules attached and report (``Sluice/ReportedAttachmentKey``), each as
        /// `sluice.<name>`: retry's `sluice.retries` and hedging's `sluice.hedges` on a call,
        /// `sluice.hedge` on a hedged attempt.
        func report(_ attachments: Attachments) {
            guard !attachments.isEmpty else { return }
            for (name, value) in attachments.reported {
                switch value {
                case .count(let count): attributes["sluice." + name] = count
                case .flag(let flag): attributes["sluice." + name] = flag
                case .label(let label): attributes["sluice." + name] = label
                }
            }
        }

        /// A failure: its `SluiceError` code and stage, the error recorded, an error status.
        func fail(_ error: any Error) {
            let sluice = error as? SluiceError
            attributes["error.type"] = sluice?.code.rawValue ?? (error is CancellationError ? "cancelled" : "other")
            if let stage = sluice?.stage { attributes["sluice.stage"] = stage.description }
            recordError(error)
            setStatus(SpanStatus(code: .error))
        }
    }

    /// Ends a span when its call is over: when the answer returns, or, for a streamed body, when
    /// the body has been read, its reading failed, or its reader let it go (cancelled).
    enum SpanEnding {
        /// Runs `call` under `span`; a failure is recorded as `context` tells it (past the
        /// deadline, a cancellation and any stage's `.timedOut` are the deadline's one `.timedOut`).
        static func run(
            _ span: any Span, _ request: HTTPRequest, _ context: RequestContext, _ call: () async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            var response: HTTPResponse
            do {
                response = try await call()
            } catch {
                span.fail(context.recorded(error, for: request))
                span.end()
                throw error
            }
            span.answered(response)
            guard let stream = response.bodyStream else {
                span.end()
                return response
            }
            response.bodyStream = stream.observingEnd { error in
                // A body let go before its end: the answer came, and the span says its status.
                if let failure = context.streamFailure(error, for: request) { span.fail(failure) }
                span.end()
            }
            return response
        }
    }

    /// Puts a span's context into request fields through a tracer's `inject`; a field Sluice
    /// refuses is an error, never dropped or sent as it is.
    enum FieldInjection {
        struct Carrier: Sendable {
            var fields: HTTPFields
            var error: SluiceError?
        }

        struct Injector: Instrumentation.Injector {
            func inject(_ value: String, forKey key: String, into carrier: inout Carrier) {
                do throws(SluiceError) {
                    try carrier.fields.set(name: key, value: value)
                } catch {
                    if carrier.error == nil {
                        carrier.error = SluiceError(
                            .invalidHeader, "the tracer injected a field Sluice refuses: \(error.message)", underlying: error)
                    }
                }
            }
        }

        static func inject(_ context: ServiceContext, into fields: HTTPFields, through tracer: any Tracer) throws(SluiceError) -> HTTPFields {
            var carrier = Carrier(fields: fields)
            tracer.inject(context, into: &carrier, using: Injector())
            if let error = carrier.error { throw error }
            return carrier.fields
        }
    }
    /// When a phase ended, for its span event.
    struct PhaseInstant: TracerInstant {
        let nanosecondsSinceEpoch: UInt64
        static func < (lhs: PhaseInstant, rhs: PhaseInstant) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
    }

#endif
