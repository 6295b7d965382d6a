import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// Adds the same parameters to every request (a device name, OS version, timestamp, token,
/// device id, channel and app version, or any provider's), into the query, a form body or a JSON
/// body.
///
/// - `.query`: appended to the URL's query, percent-encoded (RFC 3986 unreserved characters kept).
/// - `.formBody`: appended to an `application/x-www-form-urlencoded` body; a request without a body
///   that may have one (POST, PUT, PATCH) gets a form body; any other request gets them in the query.
/// - `.jsonBody`: added to a JSON object body (the body's own keys win); a request without a body
///   that may have one gets a JSON object; other bodies get them in the query.
///
/// A parameter the request already has (same name in the query or body) is left as it is.
///
/// ```swift
/// import SluiceHeaders
///
/// let common = CommonParametersMiddleware(configuration: .init(
///     placement: .formBody,
///     parameters: CommonParametersMiddleware.standard(appVersion: "4.2.0", channel: "appstore",
///                                                     deviceID: deviceID, token: { try await Keychain.token() })
/// ))
/// ```
public struct CommonParametersMiddleware: Middleware {
    /// Where the parameters go.
    public enum Placement: Sendable, Hashable {
        /// Into the URL's query.
        case query
        /// Into a form body (the query when the body is not a form).
        case formBody
        /// Into a JSON object body (the query when the body is not one).
        case jsonBody
    }

    /// A source of parameters, called for each request.
    public typealias Provider = @Sendable () async throws -> [(name: String, value: String)]

    /// Where the parameters go and what they are.
    public struct Configuration: Sendable {
        /// Where they go.
        public var placement: Placement
        /// Computes the parameters for each request.
        public var parameters: Provider

        /// Settings with each value given, or its default.
        public init(placement: Placement = .query, parameters: @escaping Provider) {
            self.placement = placement
            self.parameters = parameters
        }
    }

    public static let defaultPosition = MiddlewarePosition.headers

    /// How it behaves.
    public let configuration: Configuration

    /// One with `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// A common set: `device` (the machine's name), `os` (its version), `timestamp` (Unix seconds),
    /// `token`, `device_id`, `channel` and `app_version`. Empty values are left out.
    public static func standard(
        appVersion: String, channel: String, deviceID: String = "",
        token: @escaping @Sendable () async throws -> String = { "" },
        clock: @escaping @Sendable () -> Date = { Date() }
    ) -> Provider {
        let device = ProcessInfo.processInfo.hostName
        let os = ProcessInfo.processInfo.operatingSystemVersionString
        return {
            let pairs: [(name: String, value: String)] = [
                ("device", device), ("os", os), ("timestamp", String(Int(clamping: clock().timeIntervalSince1970))),
                ("token", try await token()), ("device_id", deviceID), ("channel", channel), ("app_version", appVersion),
            ]
            return pairs.filter { !$0.value.isEmpty }
        }
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var parameters = try await configuration.parameters()
        // After a redirect to another origin, parameters that carry credentials are left out.
        if !request.sendsCredentials {
            let secret = request.privacyPolicy
            parameters.removeAll { secret.hidesQueryParameter($0.name) }
        }
        guard !parameters.isEmpty else { return try await next(request, context) }
        var request = request
        let mayHaveBody = request.method == .post || request.method == .put || request.method == .patch
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        switch configuration.placement {
        case .query:
            request.url = try Self.appendingQuery(parameters, to: request.url)
        case .formBody:
            if case .bytes(let body) = request.body, contentType.hasPrefix("application/x-www-form-urlencoded") {
                request.body = .bytes(Self.appendingForm(parameters, to: body))
            } else if case .empty = request.body, mayHaveBody {
                request.body = .bytes(Self.appendingForm(parameters, to: Data()))
                try request.headers.set(name: "Content-Type", value: "application/x-www-form-urlencoded")
            } else {
                request.url = try Self.appendingQuery(parameters, to: request.url)
            }
        case .jsonBody:
            if case .bytes(let body) = request.body, contentType.contains("json"),
                let merged = try Self.mergingJSON(parameters, into: body)
            {
                request.body = .bytes(merged)
            } else if case .empty = request.body, mayHaveBody {
                request.body = .bytes(try Self.mergingJSON(parameters, into: Data("{}".utf8))!)
                try request.headers.set(name: "Content-Type", value: "application/json")
            } else {
                request.url = try Self.appendingQuery(parameters, to: request.url)
            }
        }
        return try await next(request, context)
    }

    // MARK: Encoding

    static func percentEncoded(_ text: String) -> String { PercentEncoding.encode(text, keeping: .queryItem) }

    static func appendingQuery(_ parameters: [(name: String, value: String)], to url: URL) throws(SluiceError) -> URL {
        let existing = Set((URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []).map(\.name))
        let added = parameters.filter { !existing.contains($0.name) }
            .map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }
        return try URLQuery.appending(added.joined(separator: "&"), to: url)
    }

    static func appendingForm(_ parameters: [(name: String, value: String)], to body: Data) -> Data {
        let text = String(decoding: body, as: UTF8.self)
        let existing = Set(
            text.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
                .map { PercentEncoding.decode($0) ?? $0 })
        let added = parameters.filter { !existing.contains($0.name) }
            .map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }
        guard !added.isEmpty else { return body }
        return Data(((text.isEmpty ? "" : text + "&") + added.joined(separator: "&")).utf8)
    }

    /// `body` (a JSON object) with the parameters its keys lack; nil when it is not a JSON object.
    static func mergingJSON(_ parameters: [(name: String, value: String)], into body: Data) throws(SluiceError) -> Data? {
        guard var object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return nil }
        for (name, value) in parameters where object[name] == nil { object[name] = value }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            throw SluiceError(.invalidBody, "the JSON body could not be written again with the common parameters")
        }
        return data
    }
}
