import Foundation
import Sluice

/// A transport that answers from a script, records every request, and can add latency.
///
/// Script it with a queue of replies, consumed in order:
///
/// ```swift
/// import Sluice
/// import SluiceTesting
///
/// let transport = MockTransport(replies: [
///     .status(503),
///     .json(#"{"id":42}"#),
///     .error(SluiceError(.timedOut, "scripted")),
/// ])
/// ```
///
/// or with a closure that sees each request:
///
/// ```swift
/// import Testing
/// import Foundation
/// import Sluice
/// import SluiceTesting
///
/// let transport = MockTransport { request, context in
///     request.url.path == "/users/42" ? .json(#"{"id":42}"#) : .status(404)
/// }
/// let pipeline = Pipeline(middlewares: [MyMiddleware()], transport: transport)
/// _ = try await pipeline.send(HTTPRequest(url: URL(string: "https://example.com/users/42")!))
/// #expect(transport.requests.first?.request.headers["X-Tenant"] == "acme")
/// ```
///
/// When the queue runs out, the call throws ``MockTransport/ExhaustedError`` naming the request.
/// Request bodies are read whole and kept in ``Received/body``, so tests can assert on the bytes a
/// middleware produced (a one-shot stream is consumed by this, as a real transport would).
public final class MockTransport: HTTPTransport {
    /// One scripted answer.
    public enum Reply: Sendable {
        /// Answer this response.
        case response(HTTPResponse)
        /// Throw this error.
        case error(any Error)

        /// A response with `status`, `headers` and a UTF-8 `body`.
        public static func status(_ status: HTTPStatus, headers: HTTPFields = [:], body: String = "") -> Reply {
            .response(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
        }

        /// A 200 (or `status`) with `Content-Type: application/json` and `json` as the body.
        public static func json(_ json: String, status: HTTPStatus = .ok) -> Reply {
            .status(status, headers: ["Content-Type": "application/json"], body: json)
        }
    }

    /// A request as the transport received it.
    public struct Received: Sendable {
        /// The request as it arrived.
        public let request: HTTPRequest
        /// The context it came with.
        public let context: RequestContext
        /// The request body, read whole.
        public let body: Data
    }

    /// Thrown when a queue-scripted transport has no reply left.
    public struct ExhaustedError: Error, CustomStringConvertible, Equatable {
        /// The request it had no reply for, as `"GET https://…"`.
        public let request: String
        /// The error for `request`, described.
        public init(request: String) { self.request = request }
        public var description: String { "MockTransport has no scripted reply left for \(request)" }
    }

    /// Options for recording and timing.
    public struct Configuration: Sendable {
        /// Time added before each reply (cancellation ends it at once).
        public var latency: Duration?
        /// Whether requests are recorded (turn off for benchmarks of millions of requests).
        public var recordsRequests: Bool

        /// A mock that waits `latency` before each reply and records requests when `recordsRequests`.
        public init(latency: Duration? = nil, recordsRequests: Bool = true) {
            self.latency = latency
            self.recordsRequests = recordsRequests
        }

        /// No latency, requests recorded.
        public static let `default` = Configuration()
    }

    private enum Script {
        case queue
        case handler(@Sendable (HTTPRequest, RequestContext) async throws -> Reply)
    }

    private struct State {
        var queue: [Reply]
        var received: [Received] = []
    }

    private let script: Script
    private let configuration: Configuration
    private let state: Locked<State>

    /// Answers each request with the next reply of `replies`.
    public init(replies: [Reply], configuration: Configuration = .default) {
        script = .queue
        self.configuration = configuration
        state = Locked(State(queue: replies))
    }

    /// Answers each request with what `handler` returns.
    public init(
        configuration: Configuration = .default,
        _ handler: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> Reply
    ) {
        script = .handler(handler)
        self.configuration = configuration
        state = Locked(State(queue: []))
    }

    /// Answers every request with `200 OK` and `body`.
    public static func successful(body: String = "", configuration: Configuration = .default) -> MockTransport {
        MockTransport(configuration: configuration) { _, _ in .status(.ok, body: body) }
    }

    /// Throws `error` for every request.
    public static func failing(with error: any Error) -> MockTransport {
        MockTransport { _, _ in .error(error) }
    }

    /// Every request received so far, in order.
    public var requests: [Received] { state.withLock { $0.received } }

    /// Adds replies to the end of the queue.
    public func enqueue(_ replies: Reply...) {
        state.withLock { $0.queue.append(contentsOf: replies) }
    }

    /// Streams bodies when asked (`HTTPRequest.streamsResponseBody`): the scripted body
    /// comes back as a `ResponseBodyStream` of one chunk.
    public static let readsOptions: [any RequestOptionKey.Type] = [StreamsResponseBodyKey.self]

    public func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        if configuration.recordsRequests {
            let body = try await request.body.collect()
            state.withLock { $0.received.append(Received(request: request, context: context, body: body)) }
        }
        if let latency = configuration.latency {
            try await Task.sleep(clamping: latency)
        }
        let reply: Reply
        switch script {
        case .queue:
            let next: Reply? = state.withLock { $0.queue.isEmpty ? nil : $0.queue.removeFirst() }
            guard let next else { throw ExhaustedError(request: request.description) }
            reply = next
        case .handler(let handler):
            reply = try await handler(request, context)
        }
        switch reply {
        case .response(var response):
            response.request = request
            if request.streamsResponseBody, response.bodyStream == nil {
                response.bodyStream = ResponseBodyStream(response.body)
                response.body = Data()
            }
            return response
        case .error(let error):
            throw error
        }
    }
}
