import Foundation

/// The per-request option that asks the transport to write the response body to a file instead
/// of memory: `request.responseBodyFile = url`. The transport streams the body there as it
/// arrives (memory stays bounded for any size), leaves ``HTTPResponse/body`` empty and sets
/// ``HTTPResponse/bodyFile``.
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// var request = HTTPRequest(url: URL(string: "https://example.com/big.iso")!)
/// request.responseBodyFile = URL(fileURLWithPath: "/tmp/big.iso")
/// let response = try await pipeline.send(request)
/// response.bodyFile   // file:///tmp/big.iso
/// ```
///
/// It is a core option, not one module's, because every transport must honour it.
public enum ResponseBodyFileKey: RequestOptionKey {
    public static let defaultValue: URL? = nil
}

extension HTTPRequest {
    /// Where the transport writes the response body; `nil` (the default) keeps it in memory.
    public var responseBodyFile: URL? {
        get { options[ResponseBodyFileKey.self] }
        set { options[ResponseBodyFileKey.self] = newValue }
    }
}
