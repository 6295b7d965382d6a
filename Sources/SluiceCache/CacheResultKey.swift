import Sluice

/// What the cache did for an answer, which ``CacheMiddleware`` attaches to it: `hit` (served from
/// the store, fresh or stale), `revalidated` (a 304 confirmed the stored copy) or `miss` (looked
/// in the store, then fetched). Reported as `sluice.cache` on a span and counted in
/// `http_client_cache_total` by `result` (SluiceMetrics). A response the cache did not look up for
/// (a POST, a reload) has none.
package enum CacheResultKey: ReportedAttachmentKey {
    package static let defaultValue: String? = nil
    package static let reportName = "cache"
    package static func report(_ value: String?) -> ReportedValue? { value.map { .label($0) } }
}
