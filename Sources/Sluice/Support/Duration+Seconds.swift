/// Conversions Sluice's modules share; `package`, because a standard-library type is not Sluice's
/// to extend for its users.
extension Duration {
    /// The duration in seconds as a `Double`, for rates, averages and printing.
    package var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded toward zero: what C APIs with `_MS` timeouts take.
    /// A duration too long for an `Int` of milliseconds gives `Int.max` (or `Int.min`), never a trap.
    package var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = Int(seconds).multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = milliseconds.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return sumOverflow ? (seconds < 0 ? .min : .max) : sum
    }

    /// The duration in whole nanoseconds, rounded toward zero, held to `Int64`'s range (292
    /// years): for timestamps counted in nanoseconds.
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = nanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (seconds < 0 ? .min : .max) : sum
    }

    /// `seconds` as a duration of whole milliseconds, held to 0...10^12 seconds (NaN is 0): for
    /// values computed from a peer's numbers or typed by a user, so no `Int64` conversion traps.
    package static func clampedSeconds(_ seconds: Double) -> Duration {
        guard seconds > 0 else { return .zero }
        return .milliseconds(Int64(Swift.min(seconds, 1e12) * 1000))
    }
}

extension Int {
    /// `value` rounded toward zero and held to `Int`'s range (NaN is 0): for a count, a size or a
    /// number of seconds computed in `Double` from a peer's numbers, which `Int(_:)` would trap on.
    package init(clamping value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.2e18 {
            self = .max
        } else if value <= -9.2e18 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}
