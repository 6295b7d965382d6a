/// A stage that encrypts request bodies end to end (`PayloadEncryptionMiddleware`) tells the
/// stages above it how a body will go out, so a stage that keeps a request to send later (the
/// outbox) keeps it as it will be sent, never its plaintext. `package`: the stages that need it
/// are Sluice's own.
///
/// A ``Pipeline`` asks the stages below the asking one, in chain order, through
/// ``MiddlewareNext/sealedForKeeping(_:)``.
package protocol BodySealer: Sendable {
    /// `request` with its body sealed as this stage would send it, in a form this stage sends as
    /// it is when it comes back (so it is never sealed twice); `nil` when this stage would send
    /// `request`'s body as it is.
    ///
    /// - Throws: `SluiceError` when the body cannot be sealed ahead of time.
    func sealedForKeeping(_ request: HTTPRequest) async throws -> HTTPRequest?
}

extension MiddlewareNext {
    /// `request` as the stages below will send its body (``BodySealer``): sealed by each that
    /// encrypts it, in chain order; `request` itself when none does.
    package func sealedForKeeping(_ request: HTTPRequest) async throws -> HTTPRequest {
        var request = request
        for sealer in link.sealers {
            if let sealed = try await sealer.sealedForKeeping(request) { request = sealed }
        }
        return request
    }
}
