/// The body of an ``Endpoint`` that sends none (the default `Body`). It encodes to nothing and
/// is never sent.
///
/// ```swift
/// import Sluice
///
/// struct Ping: Endpoint {
///     typealias Response = String          // Body stays NoBody
///     var path: String { "ping" }
/// }
/// ```
public struct NoBody: Encodable, Sendable, Hashable {
    /// No body.
    public init() {}
}
