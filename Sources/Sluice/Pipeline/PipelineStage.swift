/// One stage of a ``Pipeline``: a middleware (by type), the transport, or the ``Client`` itself.
///
/// Errors say which stage failed (``SluiceError/stage``) and traces time each stage
/// (``PipelineTrace/Span/stage``).
///
/// ```swift
/// import Sluice
/// import SluiceRetry
///
/// do {
///     _ = try await client.get("feed")
/// } catch let error as SluiceError {
///     if error.stage?.is(RetryMiddleware.self) == true { print("retry gave up") }
///     print(error.stage.map { "\($0)" } ?? "outside a pipeline")    // "middleware RetryMiddleware"
/// }
/// ```
public struct PipelineStage: Hashable, Sendable, CustomStringConvertible {
    /// What kind of stage it is.
    public enum Kind: Hashable, Sendable {
        /// A middleware.
        case middleware
        /// The transport.
        case transport
        /// The client itself (status and media-type checks, decoding).
        case client
    }

    /// Middleware, transport or client.
    public let kind: Kind
    /// The type's name, e.g. `"RetryMiddleware"`; `"Client"` for the client stage.
    public let typeName: String
    private let typeID: ObjectIdentifier?

    /// The stage of a middleware of type `type`.
    public static func middleware(_ type: any Middleware.Type) -> PipelineStage {
        PipelineStage(kind: .middleware, typeName: String(describing: type), typeID: ObjectIdentifier(type))
    }

    /// The stage of a transport of type `type`.
    public static func transport(_ type: any HTTPTransport.Type) -> PipelineStage {
        PipelineStage(kind: .transport, typeName: String(describing: type), typeID: ObjectIdentifier(type))
    }

    /// The client itself: building the URL, checking the status, decoding.
    public static let client = PipelineStage(kind: .client, typeName: "Client", typeID: nil)

    /// Whether this is the stage of middleware type `type`.
    public func `is`(_ type: any Middleware.Type) -> Bool {
        kind == .middleware && typeID == ObjectIdentifier(type)
    }

    /// Whether this is the stage of transport type `type`.
    public func `is`(_ type: any HTTPTransport.Type) -> Bool {
        kind == .transport && typeID == ObjectIdentifier(type)
    }

    public var description: String {
        switch kind {
        case .middleware: "middleware \(typeName)"
        case .transport: "transport \(typeName)"
        case .client: "client"
        }
    }
}
