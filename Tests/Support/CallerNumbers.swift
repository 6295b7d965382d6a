import Foundation
import Testing

/// The hostile-number kit (THREATS §12, issue 41): the values a careless caller passes, for tests
/// that drive every public number with each of them and assert that it is clamped to its
/// documented range or refused with a typed error, never a trap.
///
/// Each such test names what it covers with ``Testing/Trait/covers(_:)``;
/// `.ci/check-caller-numbers` lists every public `Duration`, `Double`, integer and
/// `ContinuousClock.Instant` a caller can pass (from the symbol graphs) and fails on one that no
/// test names.
///
/// ```swift
/// @Test(.covers("HedgingMiddleware.Configuration.maxExtraRatio"), arguments: CallerNumbers.doubles)
/// func ratio(_ ratio: Double) async throws { … }
/// ```
package enum CallerNumbers {
    /// 0, -1, one nanosecond, the extremes, and `.seconds(Int64.max)` (a caller's "no limit").
    package static let durations: [Duration] = [
        .zero, .seconds(-1), .nanoseconds(1), .seconds(Int64.min), .seconds(Int64.max),
        Duration(secondsComponent: Int64.max, attosecondsComponent: 999_999_999_999_999_999),
    ]
    /// 0, -1, 1, NaN, ±infinity, the largest finite values and the smallest positive one.
    package static let doubles: [Double] = [
        0, -1, 1, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
    ]
    /// 0, -1, 1 and the extremes.
    package static let ints: [Int] = [0, -1, 1, .min, .max]
    /// 0, -1, 1 and the extremes.
    package static let int64s: [Int64] = [0, -1, 1, .min, .max]
    /// 0, -1, 1 and the extremes.
    package static let int32s: [Int32] = [0, -1, 1, .min, .max]
    /// Whether `value` is one of the durations that mean "no limit" (at least 100 years).
    package static func isUnlimited(_ value: Duration) -> Bool { value >= .seconds(3_155_760_000) }

    /// Instants a caller may compute: long past, now, and as far ahead as `Duration` reaches.
    package static var instants: [ContinuousClock.Instant] {
        let now = ContinuousClock.now
        return [now - .seconds(Int64.max), now - .seconds(1), now, now + .seconds(Int64.max)]
    }
}

/// The public numbers a test of the kit drives; see ``CallerNumbers``.
package struct CallerNumbersCoverage: TestTrait, SuiteTrait {
    /// As `.ci/check-caller-numbers` lists them: `Type.property`, `Type.method(labels:) parameter`
    /// or `Type.Enum.case(labels:)`.
    package let names: [String]
    package var isRecursive: Bool { true }
}

extension Trait where Self == CallerNumbersCoverage {
    /// The public numbers this test drives with every hostile value (see ``CallerNumbers``).
    package static func covers(_ names: String...) -> Self { CallerNumbersCoverage(names: names) }
}

extension Result where Failure == any Error {
    /// The outcome of an async `body`, for a test that asserts a success or the exact error of
    /// each hostile value.
    package init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }

    /// Whether it is a success.
    package var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
