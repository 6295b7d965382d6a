/// The rule for a count, a size or a ratio a caller passes (THREATS §12): held to the range the
/// setting documents, and NaN, which no range holds, refused with `.misconfigured` naming the
/// setting. `package`: the rule is Sluice's, the types are the standard library's.
extension BinaryInteger {
    /// `self` held to `range`.
    package func clamped(to range: ClosedRange<Self>) -> Self {
        Swift.min(range.upperBound, Swift.max(range.lowerBound, self))
    }
}

extension FixedWidthInteger {
    /// `self + other`, held at `.max` or `.min` where it would overflow: for a sum of figures that
    /// modules or peers report.
    package func addingClamped(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}

extension Double {
    /// `self` held to `range`, or `nil` for NaN, which no range holds: the caller's setting is
    /// then refused with `.misconfigured`, naming it.
    package func clamped(to range: ClosedRange<Double>) -> Double? {
        isNaN ? nil : Swift.min(range.upperBound, Swift.max(range.lowerBound, self))
    }
}

extension SluiceError {
    /// `.misconfigured` for a number a caller set that no range holds (NaN): what it is, and
    /// what it should be.
    package static func notANumber(_ setting: String, expected: String) -> SluiceError {
        SluiceError(.misconfigured, "\(setting) is NaN; give \(expected)")
    }
}
