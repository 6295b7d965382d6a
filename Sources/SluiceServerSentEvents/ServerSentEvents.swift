import Foundation
import Sluice

/// The events of a `text/event-stream`, read through a client's whole chain as they arrive, and
/// reconnected after a drop with `Last-Event-ID`, as browsers' `EventSource` does.
///
/// - The request goes out with `Accept: text/event-stream` and `Cache-Control: no-store`.
/// - A drop (the body ends, or the connection fails) reconnects after the server's `retry:` delay
///   (``Configuration/reconnectionDelay`` until it sends one), with the last event id seen.
/// - An answer that is not `200` with `text/event-stream` ends the sequence with
///   `.unacceptableStatus` or `.unacceptableContentType`; a `204` ends it quietly (the server
///   asks the client to stop).
/// - Leaving the loop or cancelling the task closes the connection.
///
/// ```swift
/// import Sluice
/// import SluiceServerSentEvents
///
/// for try await event in client.events(try client.makeRequest(.get, "notifications")) {
///     print(event.type, event.data)
/// }
/// ```
public struct ServerSentEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    /// How the stream reconnects.
    public struct Configuration: Sendable {
        /// The wait before a reconnection until the server sends `retry:`.
        public var reconnectionDelay: Duration
        /// The most reconnections in a row without an event between them; `nil` for no limit.
        public var maxReconnections: Int?
        /// The shortest wait before a reconnection, whatever `retry:` says (1 s by default): a
        /// server's `retry: 0` never makes a reconnection storm. Each reconnection in a row without
        /// an event doubles the wait, up to ``maxReconnectionDelay``.
        public var minReconnectionDelay: Duration = .seconds(1)
        /// The longest wait before a reconnection (60 s by default).
        public var maxReconnectionDelay: Duration = .seconds(60)
        /// The most bytes of one line, and of one event's data (8 MiB each by default): a line or
        /// an event that never ends fails with `.bodyTooLarge`.
        public var maxLineSize: Int = 8 << 20
        /// See ``maxLineSize``.
        public var maxEventSize: Int = 8 << 20

        /// Settings with each value given, or its default.
        public init(reconnectionDelay: Duration = .seconds(3), maxReconnections: Int? = nil) {
            self.reconnectionDelay = reconnectionDelay
            self.maxReconnections = maxReconnections
        }

        /// The wait before reconnection number `attempt` in a row (1 for the first): the
        /// server's `retry:` or ``reconnectionDelay``, at least ``minReconnectionDelay``, doubled
        /// for each one before it, at most ``maxReconnectionDelay``.
        public func reconnectionDelay(attempt: Int, retry: Duration?) -> Duration {
            // Each held to 0...100 years first, so doubling never overflows `Duration`.
            let minimum = minReconnectionDelay.clampedWait
            let maximum = Swift.max(maxReconnectionDelay.clampedWait, minimum)
            var delay = Swift.max((retry ?? reconnectionDelay).clampedWait, minimum)
            for _ in 1..<Swift.max(1, Swift.min(attempt, 32)) where delay < maximum { delay *= 2 }
            return Swift.min(delay, maximum)
        }

        /// 3 s, as browsers wait; reconnects for as long as it is read.
        public static let `default` = Configuration()
    }

    /// The client the stream is read through.
    public let client: Client
    /// The stream's request.
    public let request: HTTPRequest
    /// How it behaves.
    public let configuration: Configuration

    /// The events at `request`, read through `client`.
    public init(client: Client, request: HTTPRequest, configuration: Configuration = .default) {
        self.client = client
        self.request = request
        self.configuration = configuration
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(events: self) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let events: ServerSentEvents
        private var parser: ServerSentEventParser
        private var body: ResponseBodyStream?
        /// The events the last chunk completed, handed out from `next` on (never removed from the
        /// front one by one: many small events in one chunk stay linear).
        private var pending: [ServerSentEvent] = []
        private var next = 0
        private var failedInARow = 0
        private var finished = false

        init(events: ServerSentEvents) {
            self.events = events
            parser = ServerSentEventParser(maxLineSize: events.configuration.maxLineSize, maxEventSize: events.configuration.maxEventSize)
        }

        public mutating func next() async throws -> ServerSentEvent? {
            while !finished {
                if next < pending.count {
                    defer { next += 1 }
                    return pending[next]
                }
                if body == nil {
                    guard try await connect() else {
                        finished = true
                        return nil
                    }
                }
                do {
                    if let chunk = try await body?.next() {
                        do {
                            pending = try parser.feed(chunk)
                        } catch {
                            throw SluiceError(error.code, "\(events.request): \(error.message)")
                        }
                        next = 0
                        if !pending.isEmpty { failedInARow = 0 }
                        continue
                    }
                } catch let error as SluiceError where [.connectionLost, .timedOut, .cannotConnect].contains(error.code) {
                    // A drop: reconnect below.
                }
                body = nil
                try await waitToReconnect()
            }
            return nil
        }

        /// Opens the stream; false when the server asked to stop (204).
        private mutating func connect() async throws -> Bool {
            var request = events.request
            try request.headers.set(name: "Accept", value: "text/event-stream")
            try request.headers.set(name: "Cache-Control", value: "no-store")
            if !parser.lastEventID.isEmpty { try request.headers.set(name: "Last-Event-ID", value: parser.lastEventID) }
            let response: HTTPResponse
            do {
                response = try await events.client.stream(request)
            } catch let error as SluiceError where [.connectionLost, .timedOut, .cannotConnect].contains(error.code) {
                try await waitToReconnect()
                return try await connect()
            }
            if response.status.code == 204 { return false }
            guard response.status.code == 200 else {
                throw SluiceError(.unacceptableStatus, "\(request) answered \(response.status) instead of an event stream", stage: .client, response: response)
            }
            let mediaType = response.headers["Content-Type"]?.split(separator: ";").first?.trimmingOptionalWhitespace().lowercased()
            guard mediaType == "text/event-stream" else {
                throw SluiceError(
                    .unacceptableContentType,
                    "\(request) answered with \(response.headers["Content-Type"].map { "Content-Type \(String(reflecting: $0))" } ?? "no Content-Type") instead of text/event-stream",
                    stage: .client, response: response)
            }
            body = response.bodyStream
            return true
        }

        private mutating func waitToReconnect() async throws {
            failedInARow += 1
            if let limit = events.configuration.maxReconnections, failedInARow > limit {
                throw SluiceError(.connectionLost, "\(events.request): the event stream dropped \(failedInARow) times in a row without an event")
            }
            try await Task.sleep(clamping: events.configuration.reconnectionDelay(attempt: failedInARow, retry: parser.retry))
        }
    }
}

extension Client {
    /// The events of the `text/event-stream` at `request`, reconnecting after drops; see
    /// ``ServerSentEvents``.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceServerSentEvents
    ///
    /// for try await event in client.events(try client.makeRequest(.get, "prices")) { print(event.data) }
    /// ```
    public func events(_ request: HTTPRequest, configuration: ServerSentEvents.Configuration = .default) -> ServerSentEvents {
        ServerSentEvents(client: self, request: request, configuration: configuration)
    }
}
