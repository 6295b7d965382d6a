import Sluice

// RetryMiddleware's per-request option: the key next to its property.

/// Opts a request with a non-idempotent method into retries (as an `Idempotency-Key` header does).
enum RetriesNonIdempotentKey: RequestOptionKey {
    static let defaultValue = false
    static let reader: OptionReader? = OptionReader(property: "request.retriesNonIdempotent", middleware: "RetryMiddleware", module: "SluiceRetry")
}

extension HTTPRequest {
    /// Retry this request even though its method is not idempotent (POST, PATCH): the caller
    /// knows the server deduplicates it. A request with an `Idempotency-Key` field is retried
    /// without this.
    public var retriesNonIdempotent: Bool {
        get { options[RetriesNonIdempotentKey.self] }
        set { options[RetriesNonIdempotentKey.self] = newValue }
    }
}
