import Sluice

// CurlTransport's per-request option: the key next to its property.

/// The per-request limit, in bytes, on a response body held in memory, behind
/// `HTTPRequest.maxResponseBodySize`; `nil` uses the transport's configuration.
package enum MaxResponseBodySizeKey: RequestOptionKey {
    package static let defaultValue: Int? = nil
    package static let reader: OptionReader? = OptionReader(
        property: "request.maxResponseBodySize", middleware: "CurlTransport", module: "SluiceCurl")
}

extension HTTPRequest {
    /// Overrides the transport's in-memory response size limit for this request.
    public var maxResponseBodySize: Int? {
        get { options[MaxResponseBodySizeKey.self] }
        set { options[MaxResponseBodySizeKey.self] = newValue }
    }
}

/// The per-request connect-to entries behind `HTTPRequest.connectTo`; empty uses the transport's.
package enum ConnectToKey: RequestOptionKey {
    package static let defaultValue: [CurlTransport.ConnectTo] = []
    package static let reader: OptionReader? = OptionReader(property: "request.connectTo", middleware: "CurlTransport", module: "SluiceCurl")
}

extension HTTPRequest {
    /// Where this request's connection goes instead of the URL's host and port, in place of the
    /// transport's ``CurlTransport/Configuration/connectTo``; the URL, `Host`, TLS server name and
    /// cookies stay the URL's. Per request only connect-to is offered, not resolve: curl writes a
    /// resolve entry into the DNS cache every request on the event thread shares.
    public var connectTo: [CurlTransport.ConnectTo] {
        get { options[ConnectToKey.self] }
        set { options[ConnectToKey.self] = newValue }
    }
}
