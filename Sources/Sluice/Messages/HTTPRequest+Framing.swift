import Foundation

/// Framing is Sluice's (THREATS §17): the `Content-Length` or chunked coding on the wire is worked
/// out by the transport from the body as sent, after the last stage that changed it. A caller's
/// own `Content-Length` or `Transfer-Encoding` field never reaches the wire: one that agrees with
/// the body is removed, one that disagrees is refused, so no request can leave bytes on a
/// connection for the next request to be read as.
extension HTTPRequest {
    /// Whether the request carries a framing field of its own (`Content-Length`,
    /// `Transfer-Encoding`): a scan of the names, nothing copied.
    package var carriesFramingFields: Bool {
        guard !headers.isEmpty else { return false }
        return headers.contains("Content-Length") || headers.contains("Transfer-Encoding")
    }

    /// This request with its own framing fields checked against its body and removed; the
    /// transport frames the body as sent.
    ///
    /// - `Content-Length` (one value, or several that agree) equal to the body's known length is
    ///   removed. A stream of unknown length takes it as its length: it is sent with that
    ///   `Content-Length`, and the transport fails the call if the stream gives more or fewer bytes.
    /// - `Transfer-Encoding: chunked` is removed (the transport sends chunked when the length is
    ///   unknown). Any other transfer coding is refused: Sluice applies none to a request body.
    ///
    /// ```swift
    /// var request = HTTPRequest(method: .post, url: url)
    /// request.body = .bytes(Data("hello".utf8))
    /// try request.headers.set(name: "Content-Length", value: "5")
    /// try request.withFramingFromBody().headers.contains("Content-Length")   // false
    /// try request.headers.set(name: "Content-Length", value: "4")
    /// try request.withFramingFromBody()   // throws .invalidHeader
    /// ```
    ///
    /// - Throws: `.invalidHeader` for a `Content-Length` that is not a length or disagrees with the
    ///   body, a `Content-Length` on a body with trailers (sent chunked), and a
    ///   `Transfer-Encoding` other than `chunked`. Nothing has been sent.
    package func withFramingFromBody() throws(SluiceError) -> HTTPRequest {
        guard carriesFramingFields else { return self }
        var request = self
        let codings = headers.values(for: "Transfer-Encoding").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if let coding = codings.first(where: { $0 != "chunked" }) {
            throw SluiceError(
                .invalidHeader,
                "\(self) carries Transfer-Encoding \(String(reflecting: coding.escapingControlCharacters())): Sluice applies no transfer coding "
                    + "to a request body and frames it itself (a compressed body is a Content-Encoding: GzipMiddleware)")
        }
        request.headers.remove(name: "Transfer-Encoding")
        let values = headers.values(for: "Content-Length")
        guard !values.isEmpty else { return request }
        let declared = try Self.declaredLength(values, of: self)
        request.headers.remove(name: "Content-Length")
        let body = method == .head ? HTTPBody.empty : body
        if case .stream(let stream) = body {
            if stream.trailers != nil {
                throw SluiceError(
                    .invalidHeader,
                    "\(self) carries Content-Length: \(declared), and its body has trailers, which are sent after a chunked body "
                        + "(leave Content-Length out)")
            }
            if stream.length == nil {
                request.body = .stream(stream.declaring(length: declared))
                return request
            }
        }
        guard let length = body.length else { return request }  // an unreadable file fails as it is opened
        guard length == declared else {
            throw SluiceError(
                .invalidHeader,
                "\(self) carries Content-Length: \(declared), and its body is \(length) bytes: Sluice writes Content-Length from "
                    + "the body as sent (leave the field out)")
        }
        return request
    }

    /// The one length `values` (every `Content-Length` field's value) declare.
    private static func declaredLength(_ values: [String], of request: HTTPRequest) throws(SluiceError) -> Int64 {
        var declared: Int64?
        for item in values.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let digits = item.trimmingCharacters(in: .whitespaces)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int64(digits) else {
                throw SluiceError(
                    .invalidHeader,
                    "\(request) carries Content-Length \(String(reflecting: String(digits.prefix(40)).escapingControlCharacters())), "
                        + "which is not a length of 0 to \(Int64.max) bytes (leave the field out: Sluice writes it from the body)")
            }
            if let declared, declared != length {
                throw SluiceError(
                    .invalidHeader, "\(request) carries Content-Length fields that disagree (\(declared) and \(length)): leave them out")
            }
            declared = length
        }
        // `values` is not empty, and an empty item throws.
        return declared ?? 0
    }
}
