extension Duration {
    /// The duration in seconds as a `Double`, for rates and averages.
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
