/// Where a response came from: the network, the cache, or the cache after a 304 revalidation;
/// modules name sources of their own (a HAR replay's `.replay`, the outbox's `.outbox`).
///
/// A struct with static values rather than an enum, so a module adds a source without the core
/// learning it and without breaking anyone's `switch`. The cache's two are named here, not in
/// SluiceCache, because app code reads them without importing the cache: a default stack's user
/// asks whether an answer came from the network or the store.
///
/// ```swift
/// import Sluice
///
/// extension ResponseSource { static let mirror = ResponseSource(rawValue: "mirror") }
///
/// let response = try await client.get("/users/42")
/// if response.source == .cache { print("served offline") }
/// ```
public struct ResponseSource: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name logs, traces and metrics show: `network`, `cache`….
    public let rawValue: String
    /// A source named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Fetched from the server.
    public static let network = ResponseSource(rawValue: "network")
    /// Served from a cache without contacting the server.
    public static let cache = ResponseSource(rawValue: "cache")
    /// A cached response the server confirmed with 304 Not Modified.
    public static let revalidated = ResponseSource(rawValue: "revalidated")

    /// The name, ``rawValue``.
    public var description: String { rawValue }
}
