import Foundation

/// One API call as a type: what it sends, and what it answers, decoded.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceCache
/// import SluiceHUD
///
/// struct SearchOrders: Endpoint {
///     typealias Response = [Order]                 // decoded as JSON by the client's decoder
///     let text: String
///     var path: String { "orders/search" }
///     var query: [URLQueryItem] { [URLQueryItem(name: "q", value: text)] }
///
///     // Module options that the core does not know: cache policy, HUD tip, tags.
///     func configure(_ request: inout HTTPRequest) {
///         request.cachePolicy = .returnCacheElseLoad     // SluiceCache
///         request.hudTip = "Searching…"                  // SluiceHUD
///         request.tags = ["search"]
///     }
/// }
///
/// struct CreateOrder: Endpoint {
///     typealias Response = Order
///     let body: NewOrder?                          // sent as JSON
///     var method: HTTPMethod { .post }
///     var path: String { "orders" }
/// }
///
/// let orders = try await client.send(SearchOrders(text: "pen"))
/// let order = try await client.send(CreateOrder(body: NewOrder(item: "pen")))
/// ```
///
/// Every requirement but ``path`` has a default: `GET`, no query, no body, no extra headers, no
/// options, and decoding by type: `Decodable` as JSON, `Data` as it came, `String` in the
/// response's charset. Give ``decode(_:with:)`` yourself for anything else (an XML tree, say).
public protocol Endpoint: Sendable {
    /// What the call answers.
    associatedtype Response
    /// What it sends as JSON; ``NoBody`` (the default) sends nothing.
    associatedtype Body: Encodable & Sendable = NoBody

    /// The request's method; `GET` unless the endpoint says otherwise.
    var method: HTTPMethod { get }
    /// Relative to the client's base URL, or absolute.
    var path: String { get }
    /// Added to the URL's query, each name and value percent-encoded (RFC 3986).
    var query: [URLQueryItem] { get }
    /// Sent as JSON with the client's encoder; `nil` sends no body.
    var body: Body? { get }
    /// Fields of this call's own, set over the client's; none unless the endpoint says otherwise.
    var headers: HTTPFields { get }

    /// A last touch on the request: options declared by modules (cache policy, HUD tip), tags,
    /// priority.
    func configure(_ request: inout HTTPRequest)

    /// The response, decoded. Called after the client validated its status and media type.
    func decode(_ response: HTTPResponse, with client: Client) throws(SluiceError) -> Response
}

extension Endpoint {
    public var method: HTTPMethod { .get }
    public var query: [URLQueryItem] { [] }
    public var headers: HTTPFields { [:] }
    public func configure(_ request: inout HTTPRequest) {}
}

extension Endpoint where Body == NoBody {
    public var body: NoBody? { nil }
}

extension Endpoint where Response: Decodable {
    public func decode(_ response: HTTPResponse, with client: Client) throws(SluiceError) -> Response {
        try client.decode(Response.self, from: response)
    }
}

extension Endpoint where Response == Data {
    public func decode(_ response: HTTPResponse, with client: Client) throws(SluiceError) -> Data {
        try DataResponseDecoder().decode(response)
    }
}

extension Endpoint where Response == String {
    public func decode(_ response: HTTPResponse, with client: Client) throws(SluiceError) -> String {
        try StringResponseDecoder().decode(response)
    }
}
