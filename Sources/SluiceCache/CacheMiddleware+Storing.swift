import Foundation
import Sluice

// What is kept, and what an unsafe request removes.
extension CacheMiddleware {
    /// Stores `response` when the rules allow it. A streamed body is stored once it has been read
    /// to its end (the returned response's stream does that); one cut short, failed, or larger
    /// than ``Configuration/maxStreamedBodySize`` is not stored.
    ///
    /// Nor is an answer that echoes a secret the request carried (its token, a hidden query or
    /// body value, in any spelling a server uses) in a stored field or its body: the caller gets
    /// it, but no store file ever holds the secret. Masking it instead would serve a wrong body.
    /// Values shorter than ``echoedSecretMinimumLength`` are not looked for: a cookie's `true`
    /// or a `pin=1234` would otherwise keep every body that says `true` or `1234` out.
    func storeIfAllowed(_ response: HTTPResponse, for request: HTTPRequest, key: String, requestTime: Date) async -> HTTPResponse {
        guard response.bodyFile == nil, strategy.mayStore(response, for: request),
            let varyValues = CacheStrategy.varyValues(response.headers, request)
        else { return response }
        let redaction = configuration.redaction.adding(request.redaction)
        let entry = CachedResponse(
            method: request.method.rawValue, url: keyURL(request), status: response.status.code,
            reasonPhrase: response.status.reasonPhrase, headers: strategy.storedFields(of: response, redaction: redaction),
            body: response.body, requestTime: requestTime, responseTime: configuration.clock(), varyValues: varyValues
        )
        let secrets = redaction.secretValues(of: request, body: true, minimumLength: Self.echoedSecretMinimumLength)
        if secrets.occurs(in: entry.headers) { return response }
        guard let stream = response.bodyStream else {
            if !secrets.occurs(in: entry.body) { try? await store.put(entry, for: key) }
            return response
        }
        let collected = Locked<Data?>(Data())
        let limit = configuration.maxStreamedBodySize
        let store = self.store
        var streamed = response
        streamed.bodyStream = stream.map(
            { chunk in
                collected.withLock { body in
                    guard let kept = body else { return }
                    body = kept.count + chunk.count <= limit ? kept + chunk : nil
                }
                return chunk
            },
            end: { error in
                guard error == nil, let body = collected.withLock({ $0 }), !secrets.occurs(in: body) else { return nil }
                var complete = entry
                complete.body = body
                try? await store.put(complete, for: key)
                return nil
            })
        return streamed
    }

    /// The shortest secret value whose echo keeps an answer out of the store: as long as a
    /// short password, longer than the words and numbers any body is full of.
    static let echoedSecretMinimumLength = 8

    /// After a successful unsafe request: its URL, and its `Location` and `Content-Location` on
    /// the same origin (scheme, host and port, as the transport writes them), are no longer
    /// served from the cache (RFC 9111 §4.4). Another origin's entries are never touched.
    func invalidate(after request: HTTPRequest, _ response: HTTPResponse, next: Next) async {
        let sentURL = next.urlAsSent(request.url)
        var targets = [sentURL]
        for name in ["Location", "Content-Location"] {
            if let value = response.headers[name], let url = URL(string: value, relativeTo: request.url)?.absoluteURL {
                let target = next.urlAsSent(url)
                if target.origin == sentURL.origin { targets.append(target) }
            }
        }
        var stored = request
        stored.method = .get
        for url in targets {
            _ = try? await store.delete(key(for: stored, url: url))
        }
    }
}
