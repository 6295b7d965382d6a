/// A value per key (an origin, a rate-limit key), at most `limit` of them: storing one more
/// forgets the key stored longest ago, so a client calling ever new hosts, or callers making up
/// ever new keys, keep bounded memory. Every operation is O(1): the keys are kept in a list in
/// the order they were last stored, linked through an array, so the one to forget is at its end
/// (issue 53, item 8: a table scanned whole for each new key past its limit cost 1 ms a call at
/// 10,000 keys). Not synchronised: its owner holds it inside a mutex.
struct OriginTable<Value> {
    private struct Node {
        let key: String
        var value: Value
        /// The node stored just before this one (older), and just after (newer); -1 for none.
        var older: Int
        var newer: Int
    }

    private var nodes: [Node] = []
    /// Each key's node, its key compared byte for byte (``ExactKey``).
    private var slots: [ExactKey: Int] = [:]
    /// Nodes whose key was removed, to reuse.
    private var freed: [Int] = []
    /// The key stored longest ago, and the one stored last; -1 when empty.
    private var oldest = -1
    private var newest = -1
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// How many keys are kept.
    var count: Int { slots.count }

    subscript(origin: String) -> Value? {
        slots[ExactKey(origin)].map { nodes[$0].value }
    }

    /// Every key kept, with its value, in no set order.
    var all: [(origin: String, value: Value)] { slots.values.map { (nodes[$0].key, nodes[$0].value) } }

    /// Keeps `value` for `origin` as the one stored last, and forgets the one stored longest ago
    /// past the limit. Returns the key forgotten, if one was.
    @discardableResult
    mutating func store(_ value: Value, for origin: String) -> String? {
        if let slot = slots[ExactKey(origin)] {
            nodes[slot].value = value
            unlink(slot)
            append(slot)
            return nil
        }
        let node = Node(key: origin, value: value, older: -1, newer: -1)
        let slot: Int
        if let reused = freed.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[ExactKey(origin)] = slot
        append(slot)
        guard slots.count > limit, oldest >= 0 else { return nil }
        let forgotten = nodes[oldest].key
        remove(forgotten)
        return forgotten
    }

    /// Forgets `origin`.
    mutating func remove(_ origin: String) {
        guard let slot = slots.removeValue(forKey: ExactKey(origin)) else { return }
        unlink(slot)
        freed.append(slot)
    }

    /// Takes `slot` out of the order.
    private mutating func unlink(_ slot: Int) {
        let (older, newer) = (nodes[slot].older, nodes[slot].newer)
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        nodes[slot].older = -1
        nodes[slot].newer = -1
    }

    /// Puts `slot` at the newest end of the order.
    private mutating func append(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot } else { oldest = slot }
        newest = slot
    }
}
