/// A value per origin, at most `limit` of them: storing one more forgets the origin used longest
/// ago, so a client calling ever new hosts keeps bounded memory. Not synchronised: its owner
/// holds it inside a mutex.
struct OriginTable<Value> {
    private var entries: [String: (value: Value, lastUsed: UInt64)] = [:]
    private var tick: UInt64 = 0
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// How many origins are kept.
    var count: Int { entries.count }

    subscript(origin: String) -> Value? { entries[origin]?.value }

    /// Every origin kept, with its value, in no set order.
    var all: [(origin: String, value: Value)] { entries.map { ($0.key, $0.value.value) } }

    /// Keeps `value` for `origin` as the one used last, and forgets the oldest past the limit.
    mutating func store(_ value: Value, for origin: String) {
        tick &+= 1
        entries[origin] = (value, tick)
        guard entries.count > limit, let oldest = entries.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key else { return }
        entries.removeValue(forKey: oldest)
    }

    /// Forgets `origin`.
    mutating func remove(_ origin: String) {
        entries.removeValue(forKey: origin)
    }
}
