import Foundation
import Sluice

/// Sends the time a call has left to the server, in a field the caller names, so the server can
/// give up when its caller will: `X-Request-Deadline: 2480` (milliseconds left) or gRPC's
/// `grpc-timeout: 2480m`. The time is the call's deadline (`RequestContext.deadline`: the
/// client's timeout, or the call's `timeout:` or `deadline:`) from the moment each attempt is
/// sent, so a retry says what is left for it. A call without a deadline sends no field.
///
/// Its place, `MiddlewarePosition.deadlineHeader`, is inside retry and the reachability gate and
/// outside signing: each attempt carries its own time, and a signature covers it.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
/// import SluiceResilience
///
/// var builder = Client.Builder(transport: CurlTransport(), configuration: .init(timeout: .seconds(5)))
/// builder.add(DeadlineHeaderMiddleware(configuration: .init(fieldName: "grpc-timeout", format: .grpcTimeout)))
/// ```
public struct DeadlineHeaderMiddleware: Middleware {
    /// The field and how its value is written.
    public struct Configuration: Sendable {
        /// How the time left is written.
        public enum Format: Sendable, Hashable {
            /// Whole milliseconds: `2480`.
            case milliseconds
            /// gRPC's `grpc-timeout`: at most 8 digits and a unit, `2480m` (milliseconds) or,
            /// past 8 digits of milliseconds, `100000S` (seconds).
            case grpcTimeout
        }

        /// The field's name: `X-Request-Deadline` by default.
        public var fieldName: String
        /// How the time left is written: milliseconds by default.
        public var format: Format

        /// Settings with each value given, or its default.
        public init(fieldName: String = "X-Request-Deadline", format: Format = .milliseconds) {
            self.fieldName = fieldName
            self.format = format
        }

        /// `X-Request-Deadline` with the milliseconds left.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.deadlineHeader

    /// How it behaves.
    public let configuration: Configuration

    /// One with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    /// - Throws: `.invalidHeader` when the configured field name is not one a request may carry.
    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard let remaining = context.remainingTime else { return try await next(request, context) }
        var request = request
        try request.headers.set(name: configuration.fieldName, value: Self.value(remaining, configuration.format))
        return try await next(request, context)
    }

    /// `remaining` written in `format`.
    static func value(_ remaining: Duration, _ format: Configuration.Format) -> String {
        let milliseconds = max(0, remaining.wholeMilliseconds)  // Int.max past its range, never a trap
        switch format {
        case .milliseconds: return String(milliseconds)
        case .grpcTimeout: return milliseconds <= 99_999_999 ? "\(milliseconds)m" : "\(min(99_999_999, milliseconds / 1000))S"
        }
    }
}
