extension Duration {
    /// The duration in seconds as a `Double`, for rates, averages and printing.
    ///
    /// ```swift
    /// let start = ContinuousClock.now
    /// let elapsed = start.duration(to: .now)
    /// print("\(elapsed.timeInterval * 1_000) ms")
    /// ```
    public var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded toward zero: what C APIs with `_MS` timeouts take.
    public var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
