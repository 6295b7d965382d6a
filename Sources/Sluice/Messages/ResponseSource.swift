/// Where a response came from: the network, the cache, or the cache after a 304 revalidation.
///
/// A struct with static values rather than an enum, so a module can add a source (for example a
/// HAR replay) without breaking anyone's `switch`.
///
/// ```swift
/// import Sluice
///
/// if response.source == .cache { print("served offline") }
/// extension ResponseSource { static let replay = ResponseSource(rawValue: "replay") }
/// ```
public struct ResponseSource: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Fetched from the server.
    public static let network = ResponseSource(rawValue: "network")
    /// Served from a cache without contacting the server.
    public static let cache = ResponseSource(rawValue: "cache")
    /// A cached response the server confirmed with 304 Not Modified.
    public static let revalidated = ResponseSource(rawValue: "revalidated")

    public var description: String { rawValue }
}
