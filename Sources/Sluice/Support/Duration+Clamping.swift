/// The one rule for a time a caller passes (THREATS §12): a duration is held to
/// `0...Duration.longestWait`, and a deadline further away than that is no deadline. So
/// `.seconds(Int64.max)`, a caller's "no limit", means no limit, and no sleep, addition or
/// conversion downstream can trap on it. `package`: the rule is Sluice's, the types are the
/// standard library's.
extension Duration {
    /// The longest wait Sluice schedules: 100 years. A timeout, a delay or a lifetime a caller
    /// gives beyond it means "no limit", and is held to it.
    package static let longestWait = Duration.seconds(3_155_760_000)

    /// Held to `0...longestWait`: a negative duration is zero, a longer one ``longestWait``.
    package var clampedWait: Duration {
        if self < .zero { return .zero }
        return Swift.min(self, .longestWait)
    }

    /// Whether this duration means "no limit": ``longestWait`` or longer.
    package var isUnlimited: Bool { self >= .longestWait }
}

extension ContinuousClock.Instant {
    /// `self`, or `nil` when it is further from now than `Duration.longestWait` (no deadline at
    /// all in practice, and more than `Task.sleep(until:)` can take).
    package var reachableDeadline: ContinuousClock.Instant? {
        ContinuousClock.now.duration(to: self) >= .longestWait ? nil : self
    }

    /// `now + duration` with `duration` held to `0...Duration.longestWait`.
    package static func after(_ duration: Duration) -> ContinuousClock.Instant {
        .now + duration.clampedWait
    }
}

extension Task where Success == Never, Failure == Never {
    /// `Task.sleep(for:)` with `duration` held to `0...Duration.longestWait`: every sleep on a time
    /// a caller or a peer gave goes through here (`Task.sleep` traps past about 292 years).
    package static func sleep(clamping duration: Duration) async throws {
        try await Task.sleep(for: duration.clampedWait)
    }

    /// `Task.sleep(until:)` on the continuous clock, with `deadline` held to at most
    /// `Duration.longestWait` from now.
    package static func sleep(clampingUntil deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: Swift.min(deadline, .now + .longestWait), clock: .continuous)
    }
}
