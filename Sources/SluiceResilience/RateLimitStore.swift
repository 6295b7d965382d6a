import Sluice

/// Where ``RateLimitMiddleware`` keeps each key's place in its rate: in this process
/// (``MemoryRateLimitStore``), or shared by every process that points at the same server, so a
/// fleet spends one quota together. A store decides atomically: two processes asking at once never
/// both take the last place.
///
/// ```swift
/// import SluiceResilience
///
/// let store = MemoryRateLimitStore()
/// let limit = RateLimit(requests: 2, per: .seconds(1))
/// try await store.acquire("api.example.com", under: limit)   // .allowed
/// try await store.acquire("api.example.com", under: limit)   // .allowed
/// try await store.acquire("api.example.com", under: limit)   // .limited(retryAfter: 0.5 s)
/// ```
public protocol RateLimitStore: Sendable {
    /// Takes a place for one call under `limit` for `key`: now when the rate allows one, or the
    /// next free one when it comes within `maxWait` (the call sleeps until it, and no other caller
    /// of any process sharing the store can take it meanwhile); otherwise takes nothing and says
    /// how long until a place would be free.
    ///
    /// - Throws: when the store cannot be reached or answers nonsense; the middleware then fails
    ///   open or closed as its configuration says.
    func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision

    /// Lets no call under `key` go for `duration`, for every process sharing the store: the server
    /// said its quota is spent (a 429's `Retry-After`, a `RateLimit` field with none left).
    func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws

    /// Gives back one place under `limit` for `key` that ``acquire(_:under:waitingAtMost:)``
    /// reserved and no call will use (the call was cancelled, or refused it): the next caller may
    /// have it. A store that cannot give places back keeps the default, which does nothing.
    func release(_ key: String, under limit: RateLimit) async throws
}

extension RateLimitStore {
    /// Does nothing: the place stays taken until its time passes.
    public func release(_ key: String, under limit: RateLimit) async throws {}

    /// Takes a place for one call now, or nothing: ``acquire(_:under:waitingAtMost:)`` waiting at
    /// most zero.
    public func acquire(_ key: String, under limit: RateLimit) async throws -> RateLimitDecision {
        try await acquire(key, under: limit, waitingAtMost: .zero)
    }
}

/// What a ``RateLimitStore`` decided for one call.
public enum RateLimitDecision: Sendable, Hashable {
    /// The call may go now; its place is taken.
    case allowed
    /// The call may go after `after`, within the wait it allowed; its place then is taken.
    case reserved(after: Duration)
    /// No place within the wait the call allowed: the next is `retryAfter` away. Nothing is taken.
    case limited(retryAfter: Duration)
}

extension RateLimitDecision {
    /// The wait a decision names: zero for ``allowed``.
    package var wait: Duration {
        switch self {
        case .allowed: .zero
        case .reserved(let after): after
        case .limited(let after): after
        }
    }
}

/// A ``RateLimitStore`` in this process's memory: the limit of one process, the default.
///
/// At most ``maxKeys`` keys are kept; past that, the key that took a place (or was paused)
/// longest ago is forgotten, in constant time, so memory and the cost of a call stay bounded
/// whatever keys callers make up. A key used that long ago is idle again (its next call would be
/// allowed anyway) unless its period is longer than the time ``maxKeys`` other keys took to come.
///
/// ```swift
/// import SluiceResilience
///
/// let limiter = RateLimitMiddleware(
///     configuration: .init(limit: RateLimit(requests: 50, per: .seconds(1))), store: MemoryRateLimitStore())
/// ```
public final class MemoryRateLimitStore: RateLimitStore {
    /// The most keys kept (10,000 unless given; 1...10,000,000).
    public let maxKeys: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    /// Each key's theoretical arrival time: when its next call would be on the steady rate.
    private let arrivals: Locked<OriginTable<ContinuousClock.Instant>>

    /// A store of at most `maxKeys` keys.
    public convenience init(maxKeys: Int = 10_000) {
        self.init(maxKeys: maxKeys, now: { .now })
    }

    /// A store whose time is `now`: for tests that step a clock.
    package init(maxKeys: Int, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.maxKeys = maxKeys.clamped(to: 1...10_000_000)
        self.now = now
        arrivals = Locked(OriginTable(limit: self.maxKeys))
    }

    public func acquire(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
        decide(key, under: limit, waitingAtMost: maxWait)
    }

    public func pause(_ key: String, for duration: Duration, under limit: RateLimit) async throws {
        let now = now()
        // The next call is allowed at now + duration, and only one at first: the arrival time
        // that gives exactly that (see `decide`).
        let paused = now.advanced(by: duration.clampedWait).advanced(by: limit.interval * (limit.burst - 1))
        arrivals.withLock { arrivals in
            _ = arrivals.store(max(arrivals[key] ?? now, paused), for: key)
        }
    }

    /// Moves the key's arrival time back one interval, never before now: the place a cancelled
    /// call reserved is free again.
    public func release(_ key: String, under limit: RateLimit) async throws {
        let now = now()
        arrivals.withLock { arrivals in
            guard let arrival = arrivals[key], arrival > now else { return }
            arrivals.store(max(now, arrival.advanced(by: .zero - limit.interval)), for: key)
        }
    }

    /// GCRA: a call at `now` would move the key's arrival time to `max(arrival, now) + interval`;
    /// it may go when that is at most `burst` intervals ahead of `now`, or reserve that moment
    /// when it is within `maxWait`.
    package func decide(_ key: String, under limit: RateLimit, waitingAtMost maxWait: Duration = .zero) -> RateLimitDecision {
        let now = now()
        let interval = limit.interval
        return arrivals.withLock { arrivals in
            let next = max(arrivals[key] ?? now, now).advanced(by: interval)
            let allowedAt = next.advanced(by: .zero - interval * limit.burst)
            let wait = now.duration(to: allowedAt)
            guard wait <= maxWait.clampedWait else { return .limited(retryAfter: wait) }
            arrivals.store(next, for: key)
            return wait > .zero ? .reserved(after: wait) : .allowed
        }
    }

    /// How many keys are kept.
    package var count: Int { arrivals.withLock { $0.count } }

}
