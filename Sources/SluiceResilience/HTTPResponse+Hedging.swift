import Sluice

/// The count of hedged copies ``HedgingMiddleware`` attaches to an answer, reported as
/// `sluice.hedges` on a span and counted in `http_client_hedges_total` (SluiceMetrics).
package enum HedgesKey: ReportedAttachmentKey {
    package static let defaultValue = 0
    package static let reportName = "hedges"
    package static func report(_ value: Int) -> ReportedValue? { value > 0 ? .count(value) : nil }
}

/// Whether a copy of an attempt is a hedge, which ``HedgingMiddleware`` attaches to that copy's
/// context, reported as `sluice.hedge` on the attempt's span (SluiceTracing).
package enum HedgeKey: ReportedAttachmentKey {
    package static let defaultValue = false
    package static let reportName = "hedge"
    package static func report(_ value: Bool) -> ReportedValue? { value ? .flag(true) : nil }
}

extension HTTPResponse {
    /// How many hedged copies of the attempt that answered were sent besides the first
    /// (``HedgingMiddleware`` sets it): 0 unless one was, whichever copy's answer this is. Metrics
    /// and traces count hedges apart from retries (SluiceRetry's `attempts`).
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceResilience
    ///
    /// let response = try await client.get("quotes/latest")
    /// if response.hedges > 0 { print("a hedge was sent") }
    /// ```
    public var hedges: Int {
        get { attachments[HedgesKey.self] }
        set { attachments[HedgesKey.self] = newValue }
    }
}

extension RequestContext {
    /// Whether this copy of the attempt is a hedge: a second copy ``HedgingMiddleware`` sent
    /// while the first was still running. A span per attempt marks it; the first copy's is
    /// `false`.
    public var isHedge: Bool {
        get { attachments[HedgeKey.self] }
        set { attachments[HedgeKey.self] = newValue }
    }
}
