import Foundation

extension Client {
    /// The calls this client has accepted and not finished, queued or running, oldest first.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let waiting = client.inFlight.filter { $0.state == .queued }.count
    /// ```
    public var inFlight: [InFlightRequest] { dispatcher.snapshot }

    /// The connections and waiting calls of each origin this client reaches: its transport's
    /// pool (``HTTPTransport/poolStatistics()``), with the calls queued in this client
    /// (``Configuration/maxConcurrentRequests``) and those its middleware hold back (a rate or
    /// concurrency limit, each a ``CallHolding``) added, sorted by origin. For a gauge reporter,
    /// every few seconds; `SluiceMetrics`' `PoolMetricsReporter` is one.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let busy = await client.poolStatistics().map { "\($0.origin) \($0.busyConnections)/\($0.openConnections)" }
    /// ```
    public func poolStatistics() async -> [PoolStatistics] {
        var figures = Dictionary(await pipeline.transport.poolStatistics().map { ($0.origin, $0) }) { first, _ in first }
        for call in dispatcher.snapshot where call.state == .queued {
            let origin = call.url.origin
            figures[origin, default: PoolStatistics(origin: origin)].add(PoolStatistics(origin: origin, queuedCalls: 1))
        }
        for case let holder as any CallHolding in pipeline.middlewares {
            for (origin, held) in holder.heldCalls() where held > 0 {
                figures[origin, default: PoolStatistics(origin: origin)].add(PoolStatistics(origin: origin, heldCalls: held))
            }
        }
        return figures.values.sorted { $0.origin < $1.origin }
    }

    /// Cancels every call in flight; each throws `CancellationError` (or `.cancelled`, see
    /// ``Configuration/reportsCancellationAsError``). Returns how many were cancelled.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// client.cancelAll()          // the user signed out
    /// ```
    @discardableResult
    public func cancelAll() -> Int {
        dispatcher.cancel(reason: "cancelAll()") { _ in true }
    }

    /// Cancels the calls whose ``HTTPRequest/tags`` hold `tag`; the others go on.
    @discardableResult
    public func cancel(tag: String) -> Int {
        dispatcher.cancel(reason: "cancel(tag: \(String(reflecting: tag)))") { $0.tags.contains(tag) }
    }

    /// Cancels the calls for exactly `url`.
    @discardableResult
    public func cancel(url: URL) -> Int {
        let text = url.absoluteString
        return dispatcher.cancel(reason: "cancel(url: \(text))") { $0.url.absoluteString == text }
    }

    /// Cancels the calls whose URL starts with `prefix` (`"https://api.example.com/v1/search"`
    /// matches every search, whatever its query).
    @discardableResult
    public func cancel(urlPrefix prefix: String) -> Int {
        dispatcher.cancel(reason: "cancel(urlPrefix: \(String(reflecting: prefix)))") { $0.url.absoluteString.hasPrefix(prefix) }
    }

    /// Cancels the calls `predicate` picks.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// client.cancel { $0.priority == .low && $0.state == .queued }
    /// ```
    @discardableResult
    public func cancel(where predicate: (InFlightRequest) -> Bool) -> Int {
        dispatcher.cancel(reason: "cancel(where:)", where: predicate)
    }

    /// Whether no call for any of `urls` is in flight.
    public func isFinished(urls: some Sequence<URL>) -> Bool {
        let texts = Set(urls.map(\.absoluteString))
        return !inFlight.contains { texts.contains($0.url.absoluteString) }
    }

    /// Whether no call carrying any of `tags` is in flight.
    public func isFinished(tags: Set<String>) -> Bool {
        !inFlight.contains { !$0.tags.isDisjoint(with: tags) }
    }
}
