import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Per-stage timing of one call: how long each middleware spent in its own code (time inside
/// `next` excluded) and how long the transport took.
///
/// Turn it on with ``Client/Configuration/isTracing`` or ``RequestContext/isTracing``; the pipeline
/// then puts the trace on ``HTTPResponse/trace``. When tracing is off, the pipeline runs a chain
/// composed without timing, so it costs nothing.
///
/// ```swift
/// import Sluice
///
/// var context = RequestContext(); context.isTracing = true
/// let response = try await pipeline.send(request, context: context)
/// print(response.trace!)
/// // middleware LoggingMiddleware      1 call   3.1µs
/// // middleware RetryMiddleware        1 call   0.8µs
/// // transport CurlTransport           1 call   412.0µs
/// ```
///
/// A middleware that calls `next` twice (retry) makes the stages inside it count two calls, and
/// their times add up. A middleware that answers without calling `next` (a cache hit) leaves the
/// stages inside it at zero calls.
public struct PipelineTrace: Sendable, CustomStringConvertible {
    /// One stage's share of the call.
    public struct Span: Sendable, Hashable {
        /// The stage.
        public let stage: PipelineStage
        /// Time spent in this stage's own code, summed over its calls.
        public let ownTime: Duration
        /// How many times the stage ran during this call.
        public let calls: Int
    }

    /// One span per stage, outermost middleware first, the transport last.
    public let spans: [Span]

    /// The sum of every stage's own time: the whole call as the pipeline saw it.
    public var total: Duration { spans.reduce(.zero) { $0 + $1.ownTime } }

    /// The span of middleware type `type`, if it is in the pipeline.
    public func span(for type: any Middleware.Type) -> Span? {
        spans.first { $0.stage.is(type) }
    }

    public var description: String {
        let width = spans.map(\.stage.description.count).max() ?? 0
        return spans.map { span in
            let name = span.stage.description.padding(toLength: width, withPad: " ", startingAt: 0)
            let micros = span.ownTime.timeInterval * 1e6
            let calls = span.calls == 1 ? "1 call " : "\(span.calls) calls"
            return "\(name)  \(calls)  \((micros * 10).rounded() / 10)µs"
        }.joined(separator: "\n")
    }
}

/// Collects the own time of each stage while a traced call runs. Shared by every hop of that call,
/// possibly from several tasks (a middleware may call `next` concurrently), hence the mutex.
final class TraceRecorder: Sendable {
    private struct Slot {
        var nanoseconds: UInt64 = 0
        var calls = 0
    }

    private let stages: [PipelineStage]
    private let slots: Locked<[Slot]>
    /// Added to each index recorded: the stages put in front of a shared chain record below zero.
    private let offset: Int

    init(stages: [PipelineStage], offset: Int = 0) {
        self.stages = stages
        self.offset = offset
        self.slots = Locked(Array(repeating: Slot(), count: stages.count))
    }

    func record(stage index: Int, nanoseconds: UInt64) {
        slots.withLock {
            $0[index + offset].nanoseconds &+= nanoseconds
            $0[index + offset].calls += 1
        }
    }

    func snapshot() -> PipelineTrace {
        slots.withLock { slots in
            PipelineTrace(
                spans: zip(stages, slots).map { stage, slot in
                    PipelineTrace.Span(stage: stage, ownTime: .nanoseconds(slot.nanoseconds), calls: slot.calls)
                })
        }
    }

    /// A monotonic clock reading in nanoseconds (vDSO, no system call).
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// Time spent inside `next` during one traced hop, summed over every call the middleware made
/// (possibly concurrent, hence atomic).
@usableFromInline
final class InnerTime: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)

    @usableFromInline
    init() {}

    var value: UInt64 { nanoseconds.load(ordering: .relaxed) }

    @usableFromInline
    func measure(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        let start = TraceRecorder.now()
        defer { nanoseconds.add(TraceRecorder.now() &- start, ordering: .relaxed) }
        return try await body()
    }
}
