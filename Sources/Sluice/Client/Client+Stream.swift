import Foundation

extension Client {
    /// Sends `request` and returns as soon as the response's head arrives, with the body in
    /// ``HTTPResponse/bodyStream``, read as it arrives (never `nil` here). The status is not
    /// checked: look at it before reading.
    ///
    /// The call passes the whole chain: retry may send it again until the head arrives (never
    /// after), logging counts the bytes as they are read, gzip decodes as they come, and the cache
    /// stores the body only once it was read to the end (a hit comes back as a stream too).
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    ///
    /// let response = try await client.stream(try client.makeRequest(.get, "exports/huge.csv"))
    /// guard response.status.isSuccess else { throw SluiceError(.unacceptableStatus, "the export answered \(response.status)") }
    /// for try await chunk in response.bodyStream! { try file.write(contentsOf: chunk) }
    /// ```
    ///
    /// `timeout` and `deadline` bound the whole call, the body's reading included (curl's transfer
    /// ends at the deadline); the head must arrive before it.
    public func stream(
        _ request: HTTPRequest, context: RequestContext? = nil, timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        var request = request
        request.streamsResponseBody = true
        var response = try await send(request, context: context, timeout: timeout, deadline: deadline)
        if response.bodyStream == nil {
            response.bodyStream = ResponseBodyStream(response.body)
            response.body = Data()
        }
        return response
    }
}
