/// One origin's concurrency limit, moved by what its calls measure. A value with no clock and no
/// lock of its own: `ConcurrencyLimiter` holds it under its lock, and tests drive it with virtual
/// time.
///
/// - **AIMD** (loss-based, for a server that sheds what it cannot serve): one more call per round
///   trip while the limit is in use, and the limit times `backoffRatio` on a sign of overload (a
///   timeout, a 429 or a 503, or a call slower than `timeout`).
/// - **Gradient** (latency-based, for a server that queues what it cannot serve): each answer moves
///   the limit toward `limit × min(1, tolerance × minimum ÷ latency) + √limit`, by `smoothing` of
///   the way. While latency stays within `tolerance` of the measured minimum the limit grows by its
///   square root (the queue it allows); when latency climbs the gradient falls below 1 and so does
///   the limit. Every `probeInterval` answers the limit drops to its square root and the minimum is
///   measured again once the calls sent before have answered, so a minimum that no longer holds (a
///   path that became slower) does not throttle the origin for good, as Netflix's
///   concurrency-limits does.
///
/// In both, a sign of overload lowers the limit once per round: an answer to a call sent before the
/// last decrease does not lower it again (the calls of one burst fail together).
struct AdaptiveLimit: Sendable {
    /// How answers move the limit.
    enum Rule: Sendable, Hashable {
        case aimd(backoffRatio: Double, timeout: Duration?)
        case gradient(tolerance: Double, smoothing: Double, probeInterval: Int)
    }

    let rule: Rule
    let minLimit: Double
    let maxLimit: Double
    /// The limit, fractional so that additive steps of `1 / limit` add up.
    private(set) var limit: Double
    /// The lowest latency measured since the last probe (gradient).
    private(set) var minimum: Duration?
    /// When the limit was last lowered; answers to calls sent before it lower it no more.
    private var lastDecrease: ContinuousClock.Instant?
    /// Which calls may measure: a call is admitted in the current epoch, and an answer to a call
    /// of an older one measures nothing. A probe starts a new epoch, and so does the moment the
    /// calls in flight at the probe have all answered.
    private(set) var epoch = 0
    /// Calls admitted before the last probe and still in flight. Until they have all answered the
    /// server may still be queueing them, and no answer measures its latency without load.
    private var draining = 0
    /// Answers since the last probe.
    private var answers = 0

    init(rule: Rule, initial: Int, min: Int, max: Int) {
        self.rule = rule
        minLimit = Double(Swift.max(1, min))
        maxLimit = Double(Swift.max(Swift.max(1, min), max))
        limit = Swift.min(maxLimit, Swift.max(minLimit, Double(initial)))
    }

    /// The calls that may be in flight now.
    var permits: Int { Int(clamping: limit) }

    /// Moves the limit by one answer.
    ///
    /// - Parameters:
    ///   - latency: from the call's admission to its answer; `nil` when it says nothing of the
    ///     server's load (a body streamed or written to a file, whose time is its size).
    ///   - sent: when the call was admitted.
    ///   - epoch: ``epoch`` when the call was admitted.
    ///   - inFlight: calls in flight when it answered, itself included.
    ///   - overloaded: whether the answer is a sign of overload.
    mutating func record(
        latency: Duration?, sent: ContinuousClock.Instant, epoch: Int, inFlight: Int, overloaded: Bool, now: ContinuousClock.Instant
    ) {
        if draining > 0 {
            if epoch < self.epoch {
                draining -= 1
                // The old calls are out: the measuring begins with the calls admitted from now on.
                if draining == 0 { self.epoch += 1 }
            }
            return
        }
        if epoch < self.epoch { return }
        if overloaded || isTimeout(latency) {
            decrease(sent: sent, now: now)
            return
        }
        guard let latency, latency > .zero else { return }
        switch rule {
        case .aimd:
            // App-limited: a limit the calls do not reach says nothing of the server.
            guard Double(inFlight) * 2 >= limit else { return }
            limit = Swift.min(maxLimit, limit + 1 / limit)
        case .gradient(let tolerance, let smoothing, let probeInterval):
            minimum = Swift.min(minimum ?? latency, latency)
            answers += 1
            if answers >= probeInterval {
                probe(othersInFlight: inFlight - 1)
                return
            }
            guard Double(inFlight) * 2 >= limit, let minimum else { return }
            let gradient = Swift.max(0.5, Swift.min(1, tolerance * minimum.timeInterval / latency.timeInterval))
            let target = limit * gradient + limit.squareRoot()
            limit = Swift.min(maxLimit, Swift.max(minLimit, limit + smoothing * (target - limit)))
        }
    }

    private func isTimeout(_ latency: Duration?) -> Bool {
        guard case .aimd(_, let timeout?) = rule, let latency else { return false }
        return latency > timeout
    }

    /// The limit lowered, once per round.
    private mutating func decrease(sent: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        if let lastDecrease, sent < lastDecrease { return }
        lastDecrease = now
        switch rule {
        case .aimd(let backoffRatio, _): limit = Swift.max(minLimit, limit * backoffRatio)
        case .gradient: limit = Swift.max(minLimit, limit / 2)
        }
    }

    /// The limit down to its square root, and the minimum forgotten until it is measured again: by
    /// an answer to a call sent once the calls in flight now have all answered (until then the
    /// server may still be queueing them, and every latency would count their wait).
    private mutating func probe(othersInFlight: Int) {
        limit = Swift.max(minLimit, limit.squareRoot())
        minimum = nil
        answers = 0
        epoch += 1
        draining = Swift.max(0, othersInFlight)
    }
}
