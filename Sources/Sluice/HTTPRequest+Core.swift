import Foundation

/// An HTTP request: a value that middleware change by copying.
///
/// ```swift
/// var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/items")!)
/// try request.headers.set(name: "Content-Type", value: "application/json")
/// request.body = .bytes(Data(#"{"name":"pen"}"#.utf8))
/// let response = try await pipeline.send(request)
/// ```
///
/// ``options`` carries typed per-request intent for middleware (see ``RequestOptionKey``).
public struct HTTPRequest: Sendable, CustomStringConvertible {
    public var method: HTTPMethod
    public var url: URL
    public var headers: HTTPFields
    public var body: HTTPBody
    /// Typed per-request options that middleware modules declare (cache policy, HUD tip, tags…).
    public var options: RequestOptions

    public init(method: HTTPMethod = .get, url: URL, headers: HTTPFields = [:], body: HTTPBody = .empty) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.options = RequestOptions()
    }

    /// `"GET https://example.com/path"`.
    public var description: String { "\(method) \(url.absoluteString)" }
}
