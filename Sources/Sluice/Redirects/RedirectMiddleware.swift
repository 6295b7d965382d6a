import Foundation

/// Follows redirects hop by hop, each hop a request of its own through the rest of the chain: the
/// cache stores each answer under the URL that produced it, retry and the reachability gate see
/// each hop, and signing signs each one for its own target.
///
/// The rules are the Fetch standard's and RFC 9110 §15.4's:
/// - 301 and 302 turn a POST into a GET; 303 turns every method but HEAD into a GET. The body
///   and its `Content-*` fields are dropped then.
/// - 307 and 308 send the same method and body again. Memory and file bodies are sent again from
///   their start; a one-shot stream cannot be, and the call fails with `.invalidBody` saying so.
/// - A redirect to another origin (scheme, host or port) drops `Authorization`, `Cookie`,
///   `Proxy-Authorization`, every field ``Redaction/default`` or the request's policy
///   (``HTTPRequest/redaction``, the client's) hides, a caller-set `Host`, and
///   every field a middleware listed in ``HTTPRequest/credentialFields``. It also turns
///   ``HTTPRequest/sendsCredentials`` off for the rest of the call, so signing and auth middleware
///   add nothing for the other host.
/// - Only `http` and `https` targets are followed (`.invalidURL` otherwise); more hops than the
///   policy allows fail with `.tooManyRedirects`.
///
/// The response is the last hop's: ``HTTPResponse/url`` is the final URL, and
/// `metrics.redirectCount` counts the hops.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
///
/// var builder = Client.Builder(transport: CurlTransport())   // has one at .redirects already
/// builder.replace(RedirectMiddleware.self, with: RedirectMiddleware(configuration: .init(policy: .follow(max: 3))))
///
/// var request = HTTPRequest(url: url)
/// request.redirectPolicy = RedirectPolicy.none   // this call sees the 3xx itself
/// ```
public struct RedirectMiddleware: Middleware {
    /// How far redirects are followed, and where to.
    public struct Configuration: Sendable {
        /// How far to follow, unless a request says otherwise (``HTTPRequest/redirectPolicy``).
        public var policy: RedirectPolicy
        /// Whether a redirect from `https` to `http` is followed. When it is not, the 3xx is
        /// returned as it is.
        public var followsHTTPSToHTTP: Bool
        /// Header fields (any case) dropped on a redirect to another origin, besides the
        /// credential fields listed above.
        public var crossOriginFields: Set<String>

        /// Settings with each value given, or its default.
        public init(policy: RedirectPolicy = .default, followsHTTPSToHTTP: Bool = true, crossOriginFields: Set<String> = []) {
            self.policy = policy
            self.followsHTTPSToHTTP = followsHTTPSToHTTP
            self.crossOriginFields = crossOriginFields
        }

        /// Up to 10 redirects, `https` to `http` followed (as browsers and curl do), nothing more
        /// dropped across origins than the credential fields.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.redirects
    public static let readsOptions: [any RequestOptionKey.Type] = [RedirectPolicyKey.self]

    /// How far and where redirects are followed.
    public let configuration: Configuration

    /// A follower with `configuration`.
    public init(configuration: Configuration = .default) {
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard case .follow(let most) = request.redirectPolicy ?? configuration.policy else {
            return try await next(request, context)
        }
        let limit = max(0, most)
        var current = request
        var hops = 0
        var context = context
        while true {
            var response = try await next(current, context)
            guard let following = try nextRequest(after: current, response) else {
                if hops > 0 { response.metrics?.redirectCount = hops }
                if response.request == nil { response.request = current }
                return response
            }
            guard hops < limit else {
                throw SluiceError(
                    .tooManyRedirects,
                    "more than \(limit) redirect\(limit == 1 ? "" : "s"), the last from \(current.redaction.url(current.url)) to "
                        + current.redaction.url(following.url)
                )
            }
            hops += 1
            current = following
            if hops == 1 { context.attachments[RedirectedFromKey.self] = request.url }
        }
    }

    /// The request a redirect asks for, or `nil` when `response` is not one to follow.
    func nextRequest(after request: HTTPRequest, _ response: HTTPResponse) throws(SluiceError) -> HTTPRequest? {
        let code = response.status.code
        guard [301, 302, 303, 307, 308].contains(code), let location = response.headers["Location"] else { return nil }
        let target = try Self.resolve(location, against: request.url, redaction: request.redaction)
        if request.url.scheme?.lowercased() == "https", target.scheme?.lowercased() == "http", !configuration.followsHTTPSToHTTP {
            return nil
        }
        var next = request
        next.url = target
        let becomesGET = (code == 303 && request.method != .head) || ((code == 301 || code == 302) && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = .empty
            for name in Set(next.headers.map { $0.name.lowercased() }) where name.hasPrefix("content-") || name == "transfer-encoding" {
                _ = next.headers.remove(name: name)
            }
        } else if case .stream(let stream) = request.body, !stream.isReplayable {
            throw SluiceError(
                .invalidBody,
                "the \(code) redirect from \(request.redaction.url(request.url)) asks for the \(request.method) to be sent again "
                    + "with its body, but the body is a one-shot stream that cannot be read twice; make it with "
                    + "HTTPBody.Stream.replayable, or use a memory or file body"
            )
        }
        if target.origin != request.url.origin {
            let dropped = Self.credentialFields.union(configuration.crossOriginFields.map { $0.lowercased() }).union(request.credentialFields)
            // And every field the request's privacy policy hides (the client's, which always has
            // the defaults' `X-Api-Key`, `X-Auth-Token`…): a secret named once is never carried
            // to another origin.
            let secret = request.privacyPolicy
            for name in Set(next.headers.map { $0.name.lowercased() }) where dropped.contains(name) || secret.hidesHeader(lowercased: name) {
                _ = next.headers.remove(name: name)
            }
            next.sendsCredentials = false
            next.credentialFields = []
        }
        return next
    }

    /// Always dropped across origins.
    static let credentialFields: Set<String> = ["authorization", "cookie", "cookie2", "proxy-authorization", "host"]

    /// `location` resolved against `base`. Spaces and bytes outside ASCII are percent-encoded
    /// first (as browsers and curl do); anything still not a URL is an `.invalidResponse`.
    static func resolve(_ location: String, against base: URL, redaction: Redaction = .default) throws(SluiceError) -> URL {
        let text = PercentEncoding.encodeControlsAndNonASCII(location)
        let notAURL = SluiceError(
            .invalidResponse, "the redirect from \(redaction.url(base)) has a Location that is not a URL (\(location.utf8.count) bytes)"
        )
        guard !text.isEmpty, let url = URL(string: text, relativeTo: base)?.absoluteURL, let scheme = url.scheme?.lowercased() else { throw notAURL }
        guard scheme == "http" || scheme == "https" else {
            throw SluiceError(
                .invalidURL, "the redirect from \(redaction.url(base)) goes to a \(scheme): URL; only http and https redirects are followed"
            )
        }
        guard url.host?.isEmpty == false else { throw notAURL }
        return url
    }
}

/// The URL a call was first sent to, which ``RedirectMiddleware`` attaches to the context of every
/// hop after the first: a stage that learns from answers (a rate limit's quota) tells the origin
/// the call was made to from one a redirect led it to.
package enum RedirectedFromKey: AttachmentKey {
    package static let defaultValue: URL? = nil
}
