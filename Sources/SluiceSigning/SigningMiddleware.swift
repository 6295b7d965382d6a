import Foundation
import Sluice

/// Signs every request, and every attempt of it afresh, just before it goes out (its default place
/// is inside retry and gzip, so the signature covers the bytes sent).
///
/// ```swift
/// builder.add(SigningMiddleware(signer: AWSSigV4Signer(
///     accessKeyID: key, secretAccessKey: secret, sessionToken: nil, region: "eu-west-1", service: "execute-api"
/// )))
/// ```
public struct SigningMiddleware: Middleware {
    public struct Configuration: Sendable {
        /// The clock the signature's date comes from (injectable for tests).
        public var clock: @Sendable () -> Date

        public init(clock: @escaping @Sendable () -> Date = { Date() }) {
            self.clock = clock
        }

        /// The system clock.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.signing

    public let signer: any Signer
    public let configuration: Configuration

    public init(signer: any Signer, configuration: Configuration = .default) {
        self.signer = signer
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await next(try await signer.sign(request, date: configuration.clock()), context)
    }
}
