import Foundation
import Sluice

// Going to the network: a fetch, a conditional request and what its answer means, and a stale copy
// when the network fails.
extension CacheMiddleware {
    func fetch(
        _ request: HTTPRequest, seen: HTTPRequest, key: String, stored: CachedResponse?, context: RequestContext, next: Next
    ) async throws -> HTTPResponse {
        let requestTime = configuration.clock()
        let response: HTTPResponse
        do {
            response = try await next(request, context)
        } catch {
            if let stale = staleCopyOnError(stored, request: request, seen: seen, error: error) { return stale }
            throw error
        }
        if response.status.code >= 500, let stale = staleCopyOnError(stored, request: request, seen: seen, error: nil) { return stale }
        if request.method != .head {
            return await storeIfAllowed(response, for: seen, key: key, requestTime: requestTime)
        }
        return response
    }

    func validate(
        _ request: HTTPRequest, seen: HTTPRequest, conditions: HTTPFields, key: String, stored: CachedResponse,
        context: RequestContext, next: Next
    ) async throws -> HTTPResponse {
        var conditional = request
        for field in conditions { try conditional.headers.set(name: field.name, value: field.value) }
        let requestTime = configuration.clock()
        let response: HTTPResponse
        do {
            response = try await next(conditional, context)
        } catch {
            if let stale = staleCopyOnError(stored, request: request, seen: seen, error: error) { return stale }
            throw error
        }
        let responseTime = configuration.clock()
        if response.status.code == 304 {
            if strategy.notModified(response, matches: stored) {
                let redaction = configuration.redaction.adding(request.redaction)
                let updated = strategy.updated(
                    stored, with: response, requestTime: requestTime, responseTime: responseTime, redaction: redaction)
                if strategy.directives(of: response.headers).noStore
                    || redaction.secretValues(of: seen, body: true, minimumLength: Self.echoedSecretMinimumLength).occurs(in: updated.headers)
                {
                    // A 304 that says no-store: this caller gets the validated body, and the
                    // store keeps nothing (RFC 9111 §5.2.2.5), so no later call is served it.
                    // Nor is one kept whose fields echo a secret of the request.
                    _ = try? await store.delete(key)
                } else {
                    try? await store.put(updated, for: key)
                }
                let age = strategy.currentAge(of: updated, now: responseTime)
                return served(updated, age: age, for: request, source: .revalidated)
            }
            // A 304 for another representation (RFC 9111 §4.3.3): the stored copy is no good, and
            // the caller, who asked unconditionally, must not see a 304. Ask again, unconditionally.
            _ = try? await store.delete(key)
            return try await fetch(request, seen: seen, key: key, stored: nil, context: context, next: next)
        }
        if response.status.code >= 500, let stale = staleCopyOnError(stored, request: request, seen: seen, error: nil) { return stale }
        if request.method != .head {
            return await storeIfAllowed(response, for: seen, key: key, requestTime: requestTime)
        }
        return response
    }

    /// A stale stored copy instead of a failure, when `stale-if-error` or the policy allows it.
    /// Cancellation is never covered up.
    func staleCopyOnError(_ stored: CachedResponse?, request: HTTPRequest, seen: HTTPRequest, error: (any Error)?) -> HTTPResponse? {
        guard let stored, !(error is CancellationError), strategy.matchesVary(stored, seen) else { return nil }
        let now = configuration.clock()
        let age = strategy.currentAge(of: stored, now: now)
        if request.cachePolicy == .offlineFallback {
            return served(stored, age: age, for: request, source: .cache)
        }
        let staleness = age - strategy.freshnessLifetime(of: stored, ttl: request.cacheTTL)
        let window = CacheStrategy.requestDirectives(request).staleIfError ?? strategy.directives(of: stored.headers).staleIfError
        guard let window, staleness <= window else { return nil }
        return served(stored, age: age, for: request, source: .cache)
    }
}
