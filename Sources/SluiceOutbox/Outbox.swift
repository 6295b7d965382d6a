import CSQLite
import Foundation
import Sluice
import SluiceReachability
import Synchronization

/// Durable offline writes: requests kept in SQLite with an `Idempotency-Key`, replayed in order
/// when the network is back, across process restarts.
///
/// - ``enqueue(_:)`` stores a request (giving it an `Idempotency-Key` if it has none) and returns
///   once it is committed: a process killed after that loses nothing.
/// - ``replay()`` sends the stored requests oldest first, each as a new call through the whole
///   chain of the client whose ``OutboxMiddleware`` serves this outbox: its auth stage gives it a
///   fresh token and its signing stage a fresh signature when it really goes out. Only while no
///   such client exists does a replay go straight to ``transport``. A 2xx or 3xx ends
///   the entry (`.delivered`). A 4xx other than 408, 425 and 429 means the server will never take
///   it: the entry moves to the dead letters with the status (`.deadLettered`), where
///   ``deadLetters()`` lists it. A transport failure, 408, 425, 429 or 5xx keeps it for later and
///   stops the pass. Each replayed call has ``Configuration/replayTimeout`` (30 s) at most: one a
///   silent server holds past it is kept for the next pass, and this pass goes on with the
///   writes after it, so one stuck call never holds the others. Entries older than ``Configuration/maximumAge`` or tried
///   ``Configuration/maximumAttempts`` times are dropped (`.expired`, `.gaveUp`).
/// - A row that can no longer be read back (its method, URL or header fields damaged), or a
///   request the transport refuses as invalid, is never sent as it is: it moves to the dead
///   letters with the reason.
/// - ``start(replayingThrough:)`` replays whenever the monitor reports reachable.
/// - The server sees the same key on every attempt, so nothing is applied twice.
///
/// ```swift
/// import SluiceOutbox
///
/// let outbox = try Outbox(path: support + "/outbox.sqlite", transport: pipeline, monitor: monitor)
/// outbox.start()
/// Task { for await outcome in outbox.outcomes { print(outcome) } }
/// ```
public final class Outbox: Sendable {
    /// How long and how many times a write is tried.
    public struct Configuration: Sendable {
        /// A write older than this is dropped.
        public var maximumAge: Duration
        /// A write tried this many times is dropped.
        public var maximumAttempts: Int
        /// The longest one replayed call may take (30 s), 1 ms...100 years: past it the call is
        /// cancelled and the pass goes on with the next write.
        public var replayTimeout: Duration

        /// Settings with each value given, or its default.
        public init(maximumAge: Duration = .seconds(7 * 86_400), maximumAttempts: Int = 20, replayTimeout: Duration = .seconds(30)) {
            self.maximumAge = maximumAge
            self.maximumAttempts = maximumAttempts
            self.replayTimeout = replayTimeout
        }

        /// A week, 20 attempts, 30 s a call.
        public static let `default` = Configuration()
    }

    /// What became of a stored request.
    public enum Outcome: Sendable, Hashable {
        /// Sent, and the server answered `status`.
        case delivered(key: String, status: Int)
        /// Older than the maximum age: dropped.
        case expired(key: String)
        /// Tried the maximum number of times: dropped.
        case gaveUp(key: String, attempts: Int)
        /// Moved to the dead letters: refused by the server (a 4xx), or damaged in the database.
        case deadLettered(key: String, reason: String)
    }

    /// The database file.
    public let path: String
    /// How it behaves.
    public let configuration: Configuration
    /// What a replay goes to while no client holds the outbox's middleware.
    public let transport: any HTTPTransport
    /// Says when the network is back.
    public let monitor: (any ReachabilityMonitor)?
    private let database: Locked<OutboxDatabase>
    private let replaying = Locked(false)
    private let subscribers = Locked<[UInt64: AsyncStream<Outcome>.Continuation]>([:])
    private let nextSubscriber = Atomic<UInt64>(0)
    private let watcher = Locked<Task<Void, Never>?>(nil)
    /// The whole chains of the clients built with an ``OutboxMiddleware`` for this outbox, oldest
    /// first (a client made by `rebuilt` adds one); those whose client is gone are dropped.
    private let chains = Locked<[ChainHandle]>([])

    /// Opens (or creates) the outbox at `path`.
    ///
    /// - Throws: `.writeFailed` when the file cannot be opened or created.
    public init(
        path: String, transport: any HTTPTransport, monitor: (any ReachabilityMonitor)? = nil,
        configuration: Configuration = .default
    ) throws(SluiceError) {
        self.path = path
        self.transport = transport
        self.monitor = monitor
        self.configuration = configuration
        database = Locked(try OutboxDatabase(path: path))
    }

    deinit { watcher.withLock { $0?.cancel() } }

    /// What happens to stored requests, from now on.
    public var outcomes: AsyncStream<Outcome> {
        AsyncStream { continuation in
            let id = nextSubscriber.add(1, ordering: .relaxed).newValue
            subscribers.withLock { $0[id] = continuation }
            continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        }
    }

    /// Stores `request` and returns its `Idempotency-Key`, once the write is committed.
    ///
    /// - Throws: `.invalidBody` for a file or stream body (only in-memory bodies are kept);
    ///   `.invalidHeader` when a field of the request's literal was invalid
    ///   (`HTTPFields.invalidLiteral`); `.writeFailed` when the database cannot be written.
    @discardableResult
    public func enqueue(_ request: HTTPRequest) throws(SluiceError) -> String {
        try request.headers.validated()
        var request = request
        let key = request.headers["Idempotency-Key"] ?? UUID().uuidString.lowercased()
        try request.headers.set(name: "Idempotency-Key", value: key)
        let body: Data
        switch request.body {
        case .empty: body = Data()
        case .bytes(let data): body = data
        default: throw SluiceError(.invalidBody, "the outbox keeps in-memory bodies only; \(request) has a file or stream body")
        }
        try database.withLock { database throws(SluiceError) in
            try database.insert(key: key, request: request, body: body, created: Date().timeIntervalSince1970)
        }
        return key
    }

    /// How many requests wait.
    public func pendingCount() throws(SluiceError) -> Int {
        try database.withLock { database throws(SluiceError) in try database.count() }
    }

    /// Replays whenever the monitor reports reachable (and now, if it already does): through
    /// `client` when one is given (see ``replay(through:)``), else as ``replay()`` does.
    public func start(replayingThrough client: Client? = nil) {
        guard let monitor else { return }
        let task = Task { [weak self] in
            for await status in monitor.statusUpdates where status.isReachable {
                guard let self else { return }
                if let client { await self.replay(through: client) } else { await self.replay() }
            }
        }
        watcher.withLock {
            $0?.cancel(); $0 = task
        }
    }

    /// Sends the stored requests, oldest first, until one cannot be delivered yet: each as a new
    /// call through the whole chain of the client whose ``OutboxMiddleware`` serves this outbox
    /// (fresh token, fresh signature), or straight to ``transport`` while there is no such
    /// client. One pass at a time: a call while another runs returns at once.
    public func replay() async {
        let chain = chains.withLock { chains in
            chains.removeAll { !$0.isAlive }
            return chains.last
        }
        await replay { request, deadline in
            var request = request
            request.usesOutbox = false
            let context = RequestContext(deadline: deadline)
            if let chain, let response = try await chain.send(request, context: context) { return response }
            return try await self.transport.send(request, context: context)
        }
    }

    /// Keeps the chain of a client built with an outbox middleware for this outbox.
    func attach(_ chain: ChainHandle) {
        chains.withLock { chains in
            chains.removeAll { !$0.isAlive }
            chains.append(chain)
        }
    }

    /// Sends the stored requests through `client`'s whole chain, as new calls: each is given a
    /// fresh token by its header middleware and signed afresh by its signing middleware for the
    /// moment it really goes out, where a replay straight to the transport would carry the
    /// credentials of the moment it was stored. The client's outbox middleware lets replays pass.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceCurl
    /// import SluiceOutbox
    ///
    /// let outbox = try Outbox(path: path, transport: CurlTransport(), monitor: monitor)
    /// builder.add(OutboxMiddleware(outbox: outbox))
    /// let client = builder.build()
    /// outbox.start(replayingThrough: client)
    /// ```
    public func replay(through client: Client) async {
        await replay { request, deadline in
            var request = request
            request.usesOutbox = false
            return try await client.send(request, deadline: deadline)
        }
    }

    private func replay(sending send: (HTTPRequest, ContinuousClock.Instant) async throws -> HTTPResponse) async {
        guard
            replaying.withLock({ running in
                if running { return false }
                running = true
                return true
            })
        else { return }
        defer { replaying.withLock { $0 = false } }
        let timeout = max(configuration.replayTimeout, .milliseconds(1)).clampedWait
        // The last entry whose call timed out this pass: the pass goes on after it.
        var skipped: Int64 = 0
        while true {
            var damaged: [(key: String, reason: String)] = []
            let next = try? database.withLock { database throws(SluiceError) in try database.oldest(after: skipped, deadLettered: &damaged) }
            for (key, reason) in damaged { publish(.deadLettered(key: key, reason: reason)) }
            guard let entry = next else { return }
            if Date().timeIntervalSince1970 - entry.created > Double(configuration.maximumAge.components.seconds) {
                remove(entry, outcome: .expired(key: entry.key))
                continue
            }
            if entry.attempts >= configuration.maximumAttempts {
                remove(entry, outcome: .gaveUp(key: entry.key, attempts: entry.attempts))
                continue
            }
            _ = try? database.withLock { database throws(SluiceError) in try database.countAttempt(entry.id) }
            do {
                let response = try await send(entry.request, .after(timeout))
                let code = response.status.code
                if [408, 425, 429].contains(code) || code >= 500 { return }
                if code >= 400 {
                    let reason = "the server answered \(response.status)"
                    _ = try? database.withLock { database throws(SluiceError) in try database.moveToDeadLetters(entry.id, reason: reason) }
                    publish(.deadLettered(key: entry.key, reason: reason))
                    continue
                }
                remove(entry, outcome: .delivered(key: entry.key, status: code))
            } catch let error as SluiceError where [.invalidURL, .invalidHeader, .invalidBody].contains(error.code) {
                // The request itself is wrong: no later pass would send it either.
                _ = try? database.withLock { database throws(SluiceError) in try database.moveToDeadLetters(entry.id, reason: error.message) }
                publish(.deadLettered(key: entry.key, reason: error.message))
            } catch let error as SluiceError where error.code == .timedOut {
                skipped = entry.id  // a silent server: kept for the next pass, the others go now
            } catch {
                return  // offline again, or the server is down: try on the next pass
            }
        }
    }

    private func remove(_ entry: OutboxDatabase.Entry, outcome: Outcome) {
        _ = try? database.withLock { database throws(SluiceError) in try database.delete(entry.id) }
        publish(outcome)
    }

    private func publish(_ outcome: Outcome) {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.yield(outcome) }
    }

    /// The writes that will never be sent, oldest first: refused by the server, or damaged.
    ///
    /// - Throws: `.writeFailed` when the database cannot be read.
    public func deadLetters() throws(SluiceError) -> [DeadLetter] {
        try database.withLock { database throws(SluiceError) in try database.deadLetters() }
            .map { DeadLetter(key: $0.key, reason: $0.reason, moved: Date(timeIntervalSince1970: $0.moved)) }
    }
}
