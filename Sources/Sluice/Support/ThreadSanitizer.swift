import CSluiceTSan

/// Tells ThreadSanitizer about a hand-off it cannot see: a value made on one thread and passed to a
/// task through a continuation. The continuation does order the two (with atomics inside the Swift
/// runtime), but the runtime is not instrumented, so TSan reported every such value as a data race.
/// Both calls are a test of a null function pointer unless the program runs under TSan.
/// `package`: for Sluice's own targets.
///
/// ```swift
/// ThreadSanitizer.release(transfer)          // on the event thread, before continuation.resume
/// let response = try await …                 // the awaiting task
/// ThreadSanitizer.acquire(transfer)          // after the await returns or throws
/// ```
package enum ThreadSanitizer {
    /// Everything this thread did so far happens before what follows an ``acquire(_:)`` of `token`.
    @inline(__always)
    package static func release(_ token: AnyObject) {
        sluice_tsan_release(UnsafeRawPointer(Unmanaged.passUnretained(token).toOpaque()))
    }

    /// See ``release(_:)``.
    @inline(__always)
    package static func acquire(_ token: AnyObject) {
        sluice_tsan_acquire(UnsafeRawPointer(Unmanaged.passUnretained(token).toOpaque()))
    }

    /// `withUnsafeThrowingContinuation` whose hand-off TSan sees: resume it with
    /// ``resume(_:with:)``, on any thread, and the awaiting task acquires what that thread did.
    /// The continuation's own address is the token.
    package static func withContinuation<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (UnsafeContinuation<T, any Error>) -> Void
    ) async throws -> sending T {
        var token: UInt = 0
        defer { sluice_tsan_acquire(UnsafeRawPointer(bitPattern: token)) }
        return try await withUnsafeThrowingContinuation(isolation: isolation) { continuation in
            token = unsafeBitCast(continuation, to: UInt.self)
            body(continuation)
        }
    }

    /// Resumes a continuation of ``withContinuation(isolation:_:)``, releasing this thread's work
    /// to the task that awaits it.
    package static func resume<T>(_ continuation: UnsafeContinuation<T, any Error>, with result: sending Result<T, any Error>) {
        sluice_tsan_release(UnsafeRawPointer(bitPattern: unsafeBitCast(continuation, to: UInt.self)))
        continuation.resume(with: result)
    }
}
