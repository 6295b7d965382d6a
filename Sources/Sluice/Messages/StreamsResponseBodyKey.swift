/// The per-request switch behind ``HTTPRequest/streamsResponseBody``, read by the transport.
///
/// ```swift
/// import Sluice
///
/// var request = HTTPRequest(url: url)
/// request.streamsResponseBody = true   // what Client.stream(_:) sets
/// ```
public enum StreamsResponseBodyKey: RequestOptionKey {
    public static let defaultValue = false
    public static let reader: OptionReader? = OptionReader(
        property: "request.streamsResponseBody", middleware: "a transport that streams bodies, such as CurlTransport", module: "SluiceCurl")
}

extension HTTPRequest {
    /// Whether the transport hands the response back as soon as its head arrives, with the body
    /// in ``HTTPResponse/bodyStream``. ``Client/stream(_:context:timeout:deadline:)`` sets it.
    public var streamsResponseBody: Bool {
        get { options[StreamsResponseBodyKey.self] }
        set { options[StreamsResponseBodyKey.self] = newValue }
    }
}
