import Foundation
import Sluice

extension SluiceError.Code {
    /// ``SluiceResilience/RateLimitMiddleware`` did not send the call: its key's rate was spent,
    /// and the call was set to fail fast, could not wait within its deadline, or found the queue
    /// full. The message names the key, the limit and when a call may go again.
    public static let rateLimited = SluiceError.Code(rawValue: "rateLimited")
}

/// A rate limit in front of the network: at most so many calls per period per origin, or per a
/// key you name, kept in this process or shared by every process that points at the same store,
/// and lowered for everyone sharing it when the server says its quota is spent.
///
/// - A call the rate allows goes at once. One over it waits for its turn, highest
///   `HTTPRequest.priority` first, then in arrival order, and then reserves the next free place in
///   the store (in the order asked, across every process sharing it) and sleeps until it, while
///   its deadline allows; or fails at once with `.rateLimited`, as ``Configuration/whenLimited``
///   says. The error names the key, the
///   limit, and when a call may go again.
/// - It learns from the server (``Configuration/learnsFromServer``). A `RateLimit-Policy` stricter
///   than the configured limit (`"default";q=50;w=2`) becomes the key's limit, kept so that no
///   window the server counts gets more than its quota, until the server states a looser one or
///   stops stating it for ``Configuration/learnedLimitLifetime``. A 429 or 503 with
///   `Retry-After`, or a `RateLimit` field (draft-ietf-httpapi-ratelimit-headers), a
///   `RateLimit-Remaining`/`RateLimit-Reset` pair or the common `X-RateLimit-Remaining`/
///   `X-RateLimit-Reset` pair saying none is left, pauses the key until the server's time.
/// - What a server teaches is bounded (THREATS §13): one answer never holds a key back longer than
///   ``Configuration/maxPause``, neither as a pause nor as the time between two calls of a learned
///   quota (`q=1;w=1e12` is kept as one call per `maxPause`), and only the origin a key belongs to
///   teaches it: a `.origin` key its origin; a `.named` or `.perRequest` key the origins in
///   ``Configuration/teachingOrigins``, or, when that is `nil`, the origin the call was made to
///   (never one a redirect led it to).
/// - A store that fails (a shared store's server down) lets the call go or refuses it, as
///   ``Configuration/whenStoreFails`` says.
///
/// Its place, `MiddlewarePosition.rateLimit`, is inside retry, hedging and the circuit breaker
/// (each attempt and each copy spends a place; a call the breaker refuses spends none), inside the
/// reachability gate (a call that cannot go out spends none), and outside the concurrency limit (a
/// call waiting for its rate holds no slot).
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceResilience
///
/// var builder = Client.Builder(transport: CurlTransport())
/// builder.add(RateLimitMiddleware(configuration: .init(limit: RateLimit(requests: 100, per: .seconds(1)))))
/// let client = builder.build()
/// ```
public struct RateLimitMiddleware: Middleware, CallHolding {
    /// The limit, what it is kept per, and what a call over it does.
    public struct Configuration: Sendable {
        /// What a limit is kept per.
        public enum Key: Sendable {
            /// The origin the call is sent to (`https://api.example.com:443`): each its own limit.
            case origin
            /// One limit for every call through this middleware, under `name` (an API key's quota).
            case named(String)
            /// The key `key` gives for each request; a call it gives `nil` for is not limited. A
            /// key is a name: it is a shared store's key in clear, and a `.rateLimited` message
            /// quotes it (hidden when it is one of the request's secrets, a token it carries).
            case perRequest(@Sendable (HTTPRequest) -> String?)
        }

        /// What a call does when its key's rate is spent.
        public enum WhenLimited: Sendable, Hashable {
            /// Waits for its turn (highest priority first, then arrival) while its deadline allows;
            /// fails with `.rateLimited` when `maxWaiting` calls wait already under its key, or when
            /// the wait would pass its deadline.
            case wait(maxWaiting: Int)
            /// Fails at once with `.rateLimited`.
            case failFast
        }

        /// What a call does when the store fails (its server down or stalled past the deadline).
        public enum WhenStoreFails: Sendable, Hashable {
            /// The call goes, unlimited: the server's own limits still answer 429.
            case allow
            /// The call fails with `.rateLimited`, naming the store's error.
            case refuse
        }

        /// The rate each key is held to.
        public var limit: RateLimit
        /// What a limit is kept per: the origin unless set.
        public var key: Key
        /// What a call over the limit does: wait, with at most 1,000 waiting per key.
        public var whenLimited: WhenLimited
        /// Whether the server's answers pause the key (`Retry-After` on 429 and 503, a quota field
        /// with none left): `true`.
        public var learnsFromServer: Bool
        /// The longest one answer of a server holds a key back (5 minutes), 0...100 years: a
        /// pause it asks for, and the time between two calls of a quota it states.
        public var maxPause: Duration
        /// What a call does when the store fails: it goes (`allow`).
        public var whenStoreFails: WhenStoreFails
        /// How long a quota the server stated stays the key's limit after the server last stated
        /// it (10 minutes), 1 second...1 day: then the configured limit holds again.
        public var learnedLimitLifetime: Duration
        /// The origins whose answers may teach a `.named` or `.perRequest` key
        /// (`https://api.example.com:443`, as `URL.origin` writes them). `nil`, the default: the
        /// origin each call was made to, and never one a redirect led it to. A `.origin` key
        /// learns from its own origin only, whatever this says.
        public var teachingOrigins: Set<String>?

        /// Settings with each value given, or its default.
        public init(
            limit: RateLimit, key: Key = .origin, whenLimited: WhenLimited = .wait(maxWaiting: 1000), learnsFromServer: Bool = true,
            maxPause: Duration = .seconds(300), whenStoreFails: WhenStoreFails = .allow, learnedLimitLifetime: Duration = .seconds(600),
            teachingOrigins: Set<String>? = nil
        ) {
            self.limit = limit
            self.key = key
            self.whenLimited = whenLimited
            self.learnsFromServer = learnsFromServer
            self.maxPause = maxPause
            self.whenStoreFails = whenStoreFails
            self.learnedLimitLifetime = learnedLimitLifetime
            self.teachingOrigins = teachingOrigins
        }

        /// 10 calls a second per origin, 10 at once, waiting with at most 1,000 per key, held back
        /// by the server for up to 5 minutes, a learned quota kept 10 minutes after it was last
        /// stated, letting calls go when the store fails.
        public static let `default` = Configuration(limit: RateLimit(requests: 10, per: .seconds(1)))
    }

    public static let defaultPosition = MiddlewarePosition.rateLimit

    /// How it behaves.
    public let configuration: Configuration
    /// Where each key's place in its rate is kept.
    public let store: any RateLimitStore
    private let turns = RateLimitTurns()
    /// The quotas servers stated that are stricter than the configured limit, by key, each until
    /// it expires; at most 1,024 keys, the one stated longest ago forgotten first.
    private let learned = Locked(OriginTable<LearnedLimit>(limit: 1024))
    /// A quota a server stated, and when it stops holding unless stated again.
    struct LearnedLimit: Equatable {
        let limit: RateLimit
        let expires: ContinuousClock.Instant
    }
    /// The clock learned limits expire by (tests step it).
    let now: @Sendable () -> ContinuousClock.Instant

    /// A limiter with `configuration`, its keys kept in `store` (this process's memory unless given).
    public init(configuration: Configuration = .default, store: any RateLimitStore = MemoryRateLimitStore()) {
        self.init(configuration: configuration, store: store, now: { .now })
    }

    /// A limiter whose learned limits expire by `now`: for tests that step a clock.
    package init(configuration: Configuration, store: any RateLimitStore, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.configuration = configuration
        self.store = store
        self.now = now
    }

    /// - Throws: `.rateLimited` as ``Configuration/whenLimited`` and
    ///   ``Configuration/whenStoreFails`` say; `CancellationError` when the call is cancelled while
    ///   it waits.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let key: String
        switch configuration.key {
        case .origin: key = next.urlAsSent(request.url).origin
        case .named(let name): key = name
        case .perRequest(let keyFor):
            guard let named = keyFor(request) else { return try await next(request, context) }
            key = named
        }
        try await admission(request, context, key: key)
        let response = try await next(request, context)
        guard configuration.learnsFromServer, mayTeach(key, request, context, next) else { return response }
        learnPolicy(from: response, key: key)
        if let pause = Self.pause(in: response, now: Date()) {
            // The call has its answer: a store that fails now only loses the lesson.
            try? await store.pause(key, for: min(pause, configuration.maxPause.clampedWait), under: limit(for: key))
        }
        return response
    }

    /// The rate `key` is held to now: the configured one, or the server's stated quota when that
    /// is stricter.
    package func limit(for key: String) -> RateLimit {
        let kept = learned.withLock { learned -> RateLimit? in
            guard let entry = learned[key] else { return nil }
            guard entry.expires > now() else {
                learned.remove(key)
                return nil
            }
            return entry.limit
        }
        return kept ?? configuration.limit
    }

    /// Whether the answer to `request` may teach `key` (THREATS §13): only from the origin the key
    /// belongs to (see ``Configuration/teachingOrigins``).
    private func mayTeach(_ key: String, _ request: HTTPRequest, _ context: RequestContext, _ next: Next) -> Bool {
        let origin = next.urlAsSent(request.url).origin
        switch configuration.key {
        case .origin: return origin == key
        case .named, .perRequest:
            if let teachers = configuration.teachingOrigins { return teachers.contains(origin) }
            guard let first = context.attachments[RedirectedFromKey.self] else { return true }
            return next.urlAsSent(first).origin == origin
        }
    }

    /// Keeps the server's `RateLimit-Policy` for `key` when it is stricter than the configured
    /// limit, and forgets it when it is not (the server raised its quota again). A quota of `q` per
    /// `w` is kept as `q − burst + 1` per `w`, with a burst of at most a tenth of `q` (and at most
    /// the configured one): GCRA lets `requests + burst − 1` calls into any window of one period,
    /// so this never passes `q` in any window the server counts, and keeps at least 90% of it.
    ///
    /// What the server states is bounded: a quota that would space two calls more than
    /// ``Configuration/maxPause`` apart is kept as one call per `maxPause`, and a quota kept
    /// expires ``Configuration/learnedLimitLifetime`` after the server last stated it.
    private func learnPolicy(from response: HTTPResponse, key: String) {
        guard let policy = Self.policy(in: response) else { return }
        let configured = configuration.limit
        let burst = min(configured.burst, max(1, policy.quota / 10))
        var server = RateLimit(requests: policy.quota - burst + 1, per: policy.window, burst: burst)
        let ceiling = configuration.maxPause.clampedWait
        if server.interval > ceiling { server = RateLimit(requests: 1, per: ceiling, burst: 1) }
        let stricter = server.perSecond < configured.perSecond
        let lifetime = min(max(configuration.learnedLimitLifetime, .seconds(1)), .seconds(86_400))
        learned.withLock { learned in
            if stricter {
                learned.store(LearnedLimit(limit: server, expires: now().advanced(by: lifetime)), for: key)
            } else if learned[key] != nil {
                learned.remove(key)
            }
        }
    }

    /// Returns once the call may go under `key`, its place taken, or throws. A waiting call holds
    /// its key's turn while it sleeps until the place it reserved, so the next in line (by
    /// priority) reserves the place after it.
    private func admission(_ request: HTTPRequest, _ context: RequestContext, key: String) async throws {
        let maxWaiting: Int
        switch configuration.whenLimited {
        case .failFast:
            switch try await decide(key, request, waitingAtMost: .zero) {
            case .allowed: return
            case .reserved(let after):
                // The call asked for no wait: a store that reserves a later place anyway is not
                // slept out (THREATS §13), however short or long.
                guard after <= .zero else {
                    giveBack(key)
                    throw refusal(request, key: key, "was given a place in \(Self.seconds(after)) by the store, and it waits for none (whenLimited: .failFast)")
                }
            case .limited(let after): throw refusal(request, key: key, "may go again in \(Self.seconds(after))")
            }
            return
        case .wait(let most): maxWaiting = max(0, most)
        }
        do {
            try await turns.take(key, priority: request.priority, url: request.authorityURL, maxWaiting: maxWaiting)
        } catch let full as RateLimitTurns.Full {
            throw refusal(request, key: key, "was not queued: \(full.waiting) calls wait already, the most that may")
        }
        defer { turns.pass(key) }
        var reasks = 0
        while true {
            let remaining = context.remainingTime ?? Duration.longestWait
            switch try await decide(key, request, waitingAtMost: remaining) {
            case .allowed:
                return
            case .reserved(let after):
                // A store that reserved past the wait it was given gets no sleep past the deadline.
                guard after < remaining else {
                    giveBack(key)
                    throw refusal(
                        request, key: key,
                        "may go in \(Self.seconds(after)), past its deadline in \(String(format: "%.1f s", remaining.timeInterval))")
                }
                turns.sleeping(key, request.authorityURL)
                defer { turns.sleeping(key, nil) }
                do {
                    try await Task.sleep(clamping: after)
                } catch {
                    giveBack(key)  // cancelled before its place: the next caller may have it
                    throw error
                }
                return
            case .limited(let after):
                if after >= remaining {
                    throw refusal(
                        request, key: key,
                        "may go again in \(Self.seconds(after)), past its deadline in \(String(format: "%.1f s", remaining.timeInterval))")
                }
                // A store that would not reserve a place within the wait: ask again then, backing
                // off (1 ms, doubling to about a second) and at most `maxReasks` times, so a store
                // that always says "in 1 µs" is neither a busy loop nor asked for ever.
                reasks += 1
                guard reasks <= Self.maxReasks else {
                    throw refusal(request, key: key, "was told by the store \(Self.maxReasks) times to ask again (last in \(Self.seconds(after)))")
                }
                turns.sleeping(key, request.authorityURL)
                defer { turns.sleeping(key, nil) }
                try await Task.sleep(clamping: max(after, .milliseconds(1 << min(reasks - 1, 10))))
            }
        }
    }

    /// Gives the place a call reserved and will not use back to the store, in a task of its own:
    /// the call's own may be cancelled, and a store's command would not go from it.
    private func giveBack(_ key: String) {
        let (store, limit) = (store, limit(for: key))
        Task { try? await store.release(key, under: limit) }
    }

    /// The store's decision, or what its failure means.
    private func decide(_ key: String, _ request: HTTPRequest, waitingAtMost maxWait: Duration) async throws -> RateLimitDecision {
        do {
            return try await store.acquire(key, under: limit(for: key), waitingAtMost: maxWait)
        } catch {
            if SluiceError.isCancellation(error) { throw error }
            switch configuration.whenStoreFails {
            case .allow: return .allowed
            case .refuse:
                throw SluiceError(
                    .rateLimited, Self.masked("the rate-limit store for \(key) failed (\(error)); the call was not sent", request), underlying: error)
            }
        }
    }

    private func refusal(_ request: HTTPRequest, key: String, _ detail: String) -> SluiceError {
        SluiceError(.rateLimited, Self.masked("\(key) is over its rate limit of \(limit(for: key)): \(request) \(detail); it was not sent", request))
    }

    /// `text` with the request's secrets hidden: a key a caller made from a token (`.perRequest`)
    /// is quoted as `<redacted>`, as the token is everywhere else.
    static func masked(_ text: String, _ request: HTTPRequest) -> String {
        request.privacyPolicy.secretValues(of: request, body: false).masking(text)
    }

    /// The calls waiting for their turn or sleeping until their place, by origin: what
    /// `Client.poolStatistics()` counts as held.
    public func heldCalls() -> [String: Int] {
        turns.held()
    }

    /// Whether a call holds the turn under `key`, and how many wait behind it.
    package func turnState(_ key: String) -> (busy: Bool, waiting: Int) {
        turns.state(of: key)
    }

    /// The most times one call asks the store again after it said "not within your wait".
    static let maxReasks = 64

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f s", duration.timeInterval)
    }
}
