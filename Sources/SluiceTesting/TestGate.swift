import Foundation
import Synchronization

/// A gate that threads wait at until a test opens it: hold a MockWebServer request, or a body
/// mid-way (``MockWebServer/Response/with(stallAfter:until:)``), for exactly as long as the test
/// needs, however slow the machine is.
///
/// ```swift
/// import SluiceTesting
///
/// let gate = TestGate()
/// server.setHandler { _ in gate.wait(); return .init(status: 200, body: "late") }
/// // … the request is now held: cancel it, count it …
/// gate.open()
/// ```
public final class TestGate: Sendable {
    private let condition = NSCondition()
    /// Changed only while `condition` is locked, so a waiter cannot miss the broadcast.
    private let isOpen = Atomic<Bool>(false)

    /// A closed gate.
    public init() {}

    deinit { open() }

    /// Blocks until the gate opens, or `timeout` passes (so a forgotten gate never hangs a run).
    /// Returns whether it opened.
    @discardableResult
    public func wait(timeout: Duration = .seconds(30)) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while !isOpen.load(ordering: .acquiring) {
            if !condition.wait(until: deadline) { return isOpen.load(ordering: .acquiring) }
        }
        return true
    }

    /// Lets every waiting and later thread through.
    public func open() {
        condition.lock()
        isOpen.store(true, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
    }
}
