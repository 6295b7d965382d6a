import Foundation
import Sluice

/// Sends opted-in writes now when it can, and keeps them in an ``Outbox`` when it cannot.
///
/// A POST, PUT, PATCH or DELETE with `HTTPRequest.usesOutbox` gets an `Idempotency-Key`
/// (unless it has one) and goes out. When it fails because the device is offline (the reachability
/// gate) or with a transport error after which it may not have arrived (refused, reset, timed out),
/// it is stored and the caller gets `202 Accepted` with the key, `response.source == .outbox`; the
/// outbox delivers it later, as a new call through this client's whole chain, so the replay gets
/// a fresh token and signature for the moment it goes out. A body that
/// `PayloadEncryptionMiddleware` below encrypts end to end is kept encrypted, as it will be sent
/// (sealed under the key current when it was kept), so the outbox file never holds its plaintext.
/// Other requests and other errors pass through.
///
/// ```swift
/// import Sluice
/// import SluiceOutbox
///
/// builder.add(OutboxMiddleware(outbox: outbox))           // outside retry and the gate
/// var write = try client.makeRequest(.post, "notes", body: .bytes(note))
/// write.usesOutbox = true
/// let response = try await client.send(write)             // 201 now, or 202 and delivered later
/// ```
public struct OutboxMiddleware: ChainAttachable {
    /// Between the cache and retry: retry has its go first; the outbox takes what is left.
    public static let defaultPosition = MiddlewarePosition.outbox
    public static let readsOptions: [any RequestOptionKey.Type] = [UsesOutboxKey.self]

    /// Where writes are kept.
    public let outbox: Outbox

    /// Keeps writes in `outbox` when they cannot go out.
    public init(outbox: Outbox) {
        self.outbox = outbox
    }

    /// Gives the outbox this client's whole chain to replay through.
    public func attach(to chain: ChainHandle) {
        outbox.attach(chain)
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard request.usesOutbox, !request.method.isSafe else { return try await next(request, context) }
        var request = request
        if !request.headers.contains("Idempotency-Key") {
            try request.headers.set(name: "Idempotency-Key", value: UUID().uuidString.lowercased())
        }
        do {
            return try await next(request, context)
        } catch let error as SluiceError where [.offline, .cannotConnect, .connectionLost, .timedOut].contains(error.code) {
            // Credentials a middleware added (`credentialFields`: a token, a signature) are not
            // kept: the file never holds them, and the replay through the chain adds fresh ones.
            var kept = request
            for name in request.credentialFields { _ = kept.headers.remove(name: name) }
            // A body encrypted end to end below is kept as it will be sent, sealed: the file
            // never holds its plaintext, and the replay sends the sealed body as it is.
            kept = try await next.sealedForKeeping(kept)
            let key = try outbox.enqueue(kept)
            var accepted = HTTPResponse(status: HTTPStatus(code: 202), headers: ["Idempotency-Key": key])
            accepted.request = request
            accepted.source = .outbox
            return accepted
        }
    }
}

extension ResponseSource {
    /// Not sent yet: kept in the ``Outbox`` for later delivery.
    public static let outbox = ResponseSource(rawValue: "outbox")
}
