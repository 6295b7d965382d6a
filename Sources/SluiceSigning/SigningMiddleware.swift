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
public struct SigningMiddleware: Middleware {
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
        var signed = try await signer.sign(request, date: configuration.clock())
        // The fields the signer added or changed carry credentials: a redirect to another origin
        // drops them when this middleware sits outside the redirect follower.
        for field in signed.headers where request.headers.values(for: field.name) != signed.headers.values(for: field.name) {
            signed.credentialFields.insert(field.name.lowercased())
        }
        return try await next(signed, context)
    }
}
