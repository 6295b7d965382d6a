import Synchronization

/// What travels down the chain beside the request: its id, the attempt number, the deadline, a
/// progress sink, and the trace switch. Middleware change it by copying.
///
/// ```swift
/// import Sluice
///
/// var context = RequestContext(deadline: .now + .seconds(10))
/// context.isTracing = true
/// let response = try await pipeline.send(request, context: context)
/// print(response.trace!)     // each middleware's own time
///
/// // A retry middleware passes the attempt number down:
/// var next = context; next.attempt += 1
/// ```
public struct RequestContext: Sendable {
    /// A process-unique id for this call, shared by all its attempts (for logs).
    public var requestID: UInt64
    /// The attempt number, from 1. Retry increases it.
    public var attempt: Int
    /// What modules attached to this call under keys of their own (whether this copy is a
    /// hedge, for one): see ``AttachmentKey``. Copied with the context, so a stage below sees
    /// what a stage above attached.
    public var attachments = Attachments()
    /// When the whole call must be finished; transports and retry honour it. A deadline more
    /// than 100 years away is no deadline (`nil`): a caller's "no limit".
    public var deadline: ContinuousClock.Instant? {
        didSet { if let deadline, deadline.reachableDeadline == nil { self.deadline = nil } }
    }
    /// Receives upload and download progress from the transport. It is called on the transport's
    /// own thread (for curl, the event thread every transfer shares): keep it short, and hand
    /// anything slow to another task.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Receives each response head (status and fields) as soon as it is read, before the body:
    /// interim 1xx heads and redirects the transport follows too, the final head last. A
    /// download uses it to save the validators of a file before its body is complete. Called on
    /// the transport's thread, like ``progress``.
    public var responseHead: (@Sendable (HTTPStatus, HTTPFields) -> Void)?
    /// Whether the pipeline times each middleware; see ``PipelineTrace``. Off costs nothing.
    public var isTracing: Bool
    /// The transport's cookie jar, when it keeps one (set by ``Pipeline``): what it will add to
    /// each request. See ``cookieField(for:)``.
    public var cookieSource: (any CookieSource)?

    /// The pipeline's recorder while a traced call runs.
    var recorder: TraceRecorder?

    /// While a traced call runs, each stage's own time so far: a middleware reading it after
    /// `next` returns sees every stage inside it complete (its own and outer stages are not
    /// finished yet, and are left out). `nil` when tracing is off.
    public var traceSoFar: PipelineTrace? {
        guard let recorder else { return nil }
        let trace = recorder.snapshot()
        return PipelineTrace(spans: trace.spans.filter { $0.calls > 0 })
    }

    /// A context for a new call, with a fresh request id.
    public init(
        deadline: ContinuousClock.Instant? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        isTracing: Bool = false
    ) {
        self.requestID = Self.nextID.add(1, ordering: .relaxed).newValue
        self.attempt = 1
        self.deadline = deadline?.reachableDeadline
        self.progress = progress
        self.isTracing = isTracing
    }

    /// Time left before ``deadline``; `nil` without a deadline, `.zero` once it has passed.
    public var remainingTime: Duration? {
        deadline.map { max(.zero, ContinuousClock.now.duration(to: $0)) }
    }

    /// Whether the deadline has passed.
    public var isPastDeadline: Bool {
        deadline.map { ContinuousClock.now >= $0 } ?? false
    }

    private static let nextID = Atomic<UInt64>(0)
}
