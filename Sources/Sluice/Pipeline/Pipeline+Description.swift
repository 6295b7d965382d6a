extension Pipeline: CustomStringConvertible, CustomDebugStringConvertible {
    /// The chain in one line, outermost first: `Pipeline(LoggingMiddleware → CacheMiddleware → CurlTransport)`.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceTesting
    ///
    /// let pipeline = Pipeline(middlewares: [RedirectMiddleware()], transport: MockTransport.successful())
    /// print(pipeline)   // Pipeline(RedirectMiddleware → MockTransport)
    /// ```
    public var description: String {
        "Pipeline(" + stages.map(\.typeName).joined(separator: " → ") + ")"
    }

    /// Every middleware and the transport with their settings, one per line: the full dump,
    /// for a debugger.
    public var debugDescription: String {
        var lines = ["Pipeline, outermost first:"]
        for middleware in middlewares { lines.append("  " + String(reflecting: middleware)) }
        lines.append("  transport: " + String(reflecting: transport))
        return lines.joined(separator: "\n")
    }
}
