import Sluice

/// `--offline`: the end of the chain that keeps the request the middleware made and sends
/// nothing. The call then fails with `.cancelled`, which no middleware retries, caches or falls
/// back from.
///
/// ```swift
/// let offline = OfflineTransport()
/// _ = try? await Pipeline(middlewares: [], transport: offline).send(HTTPRequest(url: url))
/// offline.request   // what would have gone out
/// ```
struct OfflineTransport: HTTPTransport {
    private let kept = Locked<HTTPRequest?>(nil)

    /// The request the chain handed over, if it reached the end.
    var request: HTTPRequest? { kept.withLock { $0 } }

    func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        kept.withLock { $0 = request }
        throw SluiceError(.cancelled, "--offline: nothing is sent")
    }
}
