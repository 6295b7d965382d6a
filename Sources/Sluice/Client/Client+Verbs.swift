import Foundation

// Every verb takes `timeout:` (the whole call's limit from now: the queue, redirects, retries and
// their back-off included) and `deadline:` (an instant); the earliest of them and the client's own
// `Configuration.timeout` applies, and a call still running then throws `.timedOut`. Every verb
// checks the status against `Configuration.acceptableStatusCodes`; `send(_:)` returns any.
extension Client {
    // MARK: Responses, their status checked

    /// `GET path`, with `query` added to the URL.
    ///
    /// `timeout` limits the whole call from now (the queue, redirects, retries and their back-off
    /// included), and `deadline` ends it at an instant; the earliest of them and the client's own
    /// ``Client/Configuration/timeout`` applies, and a call still running then throws `.timedOut`.
    /// Every verb takes both.
    ///
    /// Every verb checks the status, with or without `as:`: one outside
    /// ``Client/Configuration/acceptableStatusCodes`` (2xx by default) throws
    /// `.unacceptableStatus`, the response in the error. To take any status as an answer, send
    /// the request with ``Client/send(_:context:timeout:deadline:)``, which returns every
    /// response as it came: `try await client.send(client.makeRequest(.delete, "users/42"))`.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let response = try await client.get("search", query: ["q": "café", "page": 2], timeout: .seconds(5))
    /// ```
    ///
    /// - Throws: `.unacceptableStatus` for a status the client does not accept.
    public func get(
        _ path: String, query: ParameterValue = .dictionary([]), headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try request(.get, path, query: query, headers: headers), timeout: timeout, deadline: deadline))
    }

    /// `POST path` with `body` as it is.
    public func post(
        _ path: String, body: HTTPBody = .empty, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try makeRequest(.post, path, headers: headers, body: body), timeout: timeout, deadline: deadline))
    }

    /// `POST path` with `value` encoded as JSON by the configured encoder.
    public func post(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try jsonRequest(.post, path, value, headers: headers), timeout: timeout, deadline: deadline))
    }

    /// `PUT path` with `body` as it is.
    public func put(
        _ path: String, body: HTTPBody = .empty, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try makeRequest(.put, path, headers: headers, body: body), timeout: timeout, deadline: deadline))
    }

    /// `PUT path` with `value` encoded as JSON by the configured encoder.
    public func put(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try jsonRequest(.put, path, value, headers: headers), timeout: timeout, deadline: deadline))
    }

    /// `PATCH path` with `body` as it is.
    public func patch(
        _ path: String, body: HTTPBody = .empty, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try makeRequest(.patch, path, headers: headers, body: body), timeout: timeout, deadline: deadline))
    }

    /// `PATCH path` with `value` encoded as JSON by the configured encoder.
    public func patch(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try jsonRequest(.patch, path, value, headers: headers), timeout: timeout, deadline: deadline))
    }

    /// `DELETE path`.
    public func delete(
        _ path: String, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try makeRequest(.delete, path, headers: headers), timeout: timeout, deadline: deadline))
    }

    /// `DELETE path` with `value` encoded as JSON by the configured encoder.
    public func delete(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> HTTPResponse {
        try checkStatus(await send(try jsonRequest(.delete, path, value, headers: headers), timeout: timeout, deadline: deadline))
    }

    // MARK: Typed: the status and media type checked, the body decoded as `T`

    /// `GET path` with `query`, validated, and the body decoded as `T` by the configured decoder.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let users = try await client.get("users", query: ["page": 2], as: [User].self)
    /// ```
    public func get<T: Decodable>(
        _ path: String, query: ParameterValue = .dictionary([]), headers: HTTPFields = [:], as type: T.Type,
        timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> T {
        try await send(try request(.get, path, query: query, headers: headers), decoding: T.self, timeout: timeout, deadline: deadline)
    }

    /// `POST path` with `value` as JSON, validated, and the answer decoded as `T`.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let created = try await client.post("users", json: NewUser(name: "Ada"), as: User.self)
    /// ```
    public func post<T: Decodable>(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], as type: T.Type,
        timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> T {
        try await send(try jsonRequest(.post, path, value, headers: headers), decoding: T.self, timeout: timeout, deadline: deadline)
    }

    /// `PUT path` with `value` as JSON, validated, and the answer decoded as `T`.
    public func put<T: Decodable>(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], as type: T.Type,
        timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> T {
        try await send(try jsonRequest(.put, path, value, headers: headers), decoding: T.self, timeout: timeout, deadline: deadline)
    }

    /// `PATCH path` with `value` as JSON, validated, and the answer decoded as `T`.
    public func patch<T: Decodable>(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], as type: T.Type,
        timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> T {
        try await send(try jsonRequest(.patch, path, value, headers: headers), decoding: T.self, timeout: timeout, deadline: deadline)
    }

    /// `DELETE path`, validated, and the answer decoded as `T`.
    public func delete<T: Decodable>(
        _ path: String, headers: HTTPFields = [:], as type: T.Type,
        timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> T {
        try await send(try makeRequest(.delete, path, headers: headers), decoding: T.self, timeout: timeout, deadline: deadline)
    }

    /// `DELETE path` with `value` as JSON, validated, and the answer decoded as `T`.
    public func delete<T: Decodable>(
        _ path: String, json value: some Encodable, headers: HTTPFields = [:], as type: T.Type,
        timeout: Duration? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> T {
        try await send(try jsonRequest(.delete, path, value, headers: headers), decoding: T.self, timeout: timeout, deadline: deadline)
    }

    /// A request for `path` with `query` as its ``HTTPRequest/queryParameters``.
    private func request(_ method: HTTPMethod, _ path: String, query: ParameterValue, headers: HTTPFields) throws(SluiceError) -> HTTPRequest {
        var request = try makeRequest(method, path, headers: headers)
        if case .dictionary(let pairs) = query, !pairs.isEmpty { request.queryParameters = query }
        return request
    }
}
