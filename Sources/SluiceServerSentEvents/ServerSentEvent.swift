/// One event of a `text/event-stream`.
///
/// ```swift
/// import Sluice
/// import SluiceServerSentEvents
///
/// for try await event in client.events(try client.makeRequest(.get, "prices")) {
///     if event.type == "price" { update(event.data) }
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event:` field, `"message"` without one.
    public var type: String
    /// Its `data:` lines, joined with newlines.
    public var data: String
    /// The last event id seen so far (`id:`), sent back as `Last-Event-ID` on a reconnection.
    public var lastEventID: String
    /// A reconnection delay the server asked for with this event (`retry:`), if any.
    public var retry: Duration?

    /// An event with these fields.
    public init(type: String = "message", data: String, lastEventID: String = "", retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }
}
