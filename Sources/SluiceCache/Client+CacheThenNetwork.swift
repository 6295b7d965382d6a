import Sluice

extension Client {
    /// The stored copy at once, when there is one, then the fresh response: a
    /// screen can show cached data immediately and update it when the network answers.
    ///
    /// The client's pipeline must contain a ``CacheMiddleware``; without one the stream ends at
    /// once with `.misconfigured`, before anything is sent. The stored copy is read with
    /// ``CachePolicy/returnCacheDontLoad`` (fresh or stale); the network is then asked with
    /// ``CachePolicy/reloadIgnoringCache``, and its response is stored. A failure of the network
    /// ends the stream with that error, after the cached copy was yielded.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceCache
    ///
    /// for try await response in client.cacheThenNetwork(try client.makeRequest(.get, "feed")) {
    ///     render(try client.decode(Feed.self, from: response), stale: response.source == .cache)
    /// }
    /// ```
    public func cacheThenNetwork(_ request: HTTPRequest) -> AsyncThrowingStream<HTTPResponse, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var cachedRequest = request
                cachedRequest.cachePolicy = .returnCacheDontLoad
                do {
                    continuation.yield(try await send(cachedRequest))
                } catch let error as SluiceError where error.code == .cacheMiss {
                    // Nothing stored: only the network's answer comes.
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
                var networkRequest = request
                networkRequest.cachePolicy = .reloadIgnoringCache
                do {
                    continuation.yield(try await send(networkRequest))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
