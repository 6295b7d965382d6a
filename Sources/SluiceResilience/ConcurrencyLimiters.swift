import Sluice

/// Every origin's limiter, shared by every copy of the middleware: at most `maxOrigins`, the one
/// used longest ago forgotten first. A forgotten limiter still serves the calls that hold it, and
/// the origin's next call starts a new one.
final class ConcurrencyLimiters: Sendable {
    private let limiters: Locked<OriginTable<ConcurrencyLimiter>>
    private let make: @Sendable () -> AdaptiveLimit
    /// The limit a new origin starts at.
    let initialLimit: Int

    init(maxOrigins: Int, make: @escaping @Sendable () -> AdaptiveLimit) {
        limiters = Locked(OriginTable(limit: maxOrigins))
        self.make = make
        initialLimit = make().permits
    }

    func limiter(for origin: String) -> ConcurrencyLimiter {
        limiters.withLock { table in
            let limiter = table[origin] ?? ConcurrencyLimiter(limit: make())
            table.store(limiter, for: origin)
            return limiter
        }
    }

    func existing(for origin: String) -> ConcurrencyLimiter? {
        limiters.withLock { $0[origin] }
    }

    /// The calls waiting in each origin's queue, for the origins where some wait.
    func waiting() -> [String: Int] {
        var waiting: [String: Int] = [:]
        for (origin, limiter) in limiters.withLock({ $0.all }) {
            let count = limiter.status.waiting
            if count > 0 { waiting[origin] = count }
        }
        return waiting
    }
}
