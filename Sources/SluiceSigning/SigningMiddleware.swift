import Foundation
import Sluice

/// Signs every request, and every attempt of it afresh, just before it goes out (its default place
/// is inside retry and gzip, so the signature covers the bytes sent).
///
/// ```swift
/// import Sluice
/// import SluiceSigning
///
/// builder.add(SigningMiddleware(signer: AWSSigV4Signer(
///     accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret, sessionToken: nil, region: "eu-west-1", service: "execute-api"
/// )))
/// ```
///
/// It is a `CredentialSource`: a cache above it learns that the request will carry the
/// signer's credentials (so a shared cache stores the answer only when the response allows it)
/// and for whom (``Signer/identity``).
public struct SigningMiddleware: Middleware, CredentialSource {
    /// Where the signature's date comes from.
    public struct Configuration: Sendable {
        /// The clock the signature's date comes from (injectable for tests).
        public var clock: @Sendable () -> Date

        /// Settings with each value given, or its default.
        public init(clock: @escaping @Sendable () -> Date = { Date() }) {
            self.clock = clock
        }

        /// The system clock.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.signing

    /// Signs each request.
    public let signer: any Signer
    /// How it behaves.
    public let configuration: Configuration

    /// Signs every request with `signer`.
    public init(signer: any Signer, configuration: Configuration = .default) {
        self.signer = signer
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        // A redirect left the origin: nothing is signed for another host.
        guard request.sendsCredentials else { return try await next(request, context) }
        // What is signed is the URL the transport will send (`127.1` is signed as `127.0.0.1`,
        // dot segments removed), so the server checks the same bytes.
        var sent = request
        sent.url = next.urlAsSent(request.url)
        var signed = try await signer.sign(sent, date: configuration.clock())
        // The fields the signer added or changed carry credentials: a redirect to another origin
        // drops them when this middleware sits outside the redirect follower.
        let added = signed.headers.changedNames(from: sent.headers)
        if !added.isEmpty {
            let marked = signed.credentialFields
            signed.credentialFields = marked.isEmpty ? added : marked.union(added)
        }
        return try await next(signed, context)
    }

    /// The signer's fields and identity for a request it will sign; `nil` for one it will not
    /// (a redirect that left the origin).
    public func credentials(for request: HTTPRequest) async -> AddedCredentials? {
        guard request.sendsCredentials else { return nil }
        return AddedCredentials(fields: signer.addedFields, identity: signer.identity)
    }
}
