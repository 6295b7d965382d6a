import Synchronization

/// A flag that can be taken once, from any thread.
package final class Once: Sendable {
    private let taken = Atomic<Bool>(false)

    package init() {}

    /// `true` the first time only.
    package func take() -> Bool {
        !taken.exchange(true, ordering: .acquiringAndReleasing)
    }
}
