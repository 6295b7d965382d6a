extension Client: CustomStringConvertible, CustomDebugStringConvertible {
    /// The base URL and the chain in one line, outermost first:
    /// `Client(https://api.example.com/v1: LoggingMiddleware → RedirectMiddleware → CurlTransport)`.
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    /// import SluiceTesting
    ///
    /// let client = Client(transport: MockTransport.successful(), configuration: .init(baseURL: URL(string: "https://api.example.com/v1")))
    /// print(client)   // Client(https://api.example.com/v1: RedirectMiddleware → MockTransport)
    /// ```
    public var description: String {
        let chain = pipeline.stages.map(\.typeName).joined(separator: " → ")
        return "Client(" + (configuration.baseURL.map { configuration.redaction.url($0) + ": " } ?? "") + chain + ")"
    }

    /// The configuration and every middleware with its settings: the full dump, for a debugger.
    public var debugDescription: String {
        "Client\n  configuration: \(String(reflecting: configuration))\n" + pipeline.debugDescription
    }
}
