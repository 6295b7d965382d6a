import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceGzip
import SluiceHUD
import SluiceHeaders
import SluiceLogging
import SluiceReachability
import SluiceRetry
import SluiceSigning
import SluiceURLEncoding

extension Client {
    /// A client over curl with the default middleware, in the default order, set up the way most
    /// apps want them:
    ///
    /// - `HUDMiddleware` when `hud` is given (no HUD otherwise);
    /// - `LoggingMiddleware.fromEnvironment()`: off unless `SLUICE_LOG` says otherwise;
    /// - `AuthTokenMiddleware` or `SigningMiddleware` for `auth`;
    /// - `URLEncodingMiddleware` (forms and query parameters), the client's `RedirectMiddleware`;
    /// - `CacheMiddleware` over `cache` (RFC 9111, private);
    /// - `RetryMiddleware` with the default policy and a retry budget;
    /// - `ReachabilityGateMiddleware` over a `LinuxReachabilityMonitor`: offline fails fast, and the
    ///   cache can answer;
    /// - `GzipMiddleware`: compressed answers decoded, request bodies sent as written.
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    /// import SluiceStandard
    ///
    /// struct User: Decodable { let id: Int; let name: String }
    ///
    /// let client = try Client.standard(
    ///     baseURL: URL(string: "https://api.example.com/v1"), cache: .userCache(app: "my-app"),
    ///     auth: .bearer { "my-token" })
    /// let user = try await client.get("users/42", as: User.self)
    /// ```
    ///
    /// - Parameters:
    ///   - customize: changes to the builder before the client is built (add your own middleware,
    ///     replace one of these).
    /// - Throws: when the cache file cannot be opened or the network cannot be watched;
    ///   `.misconfigured` for a ``StandardStack/Cache/userCache(app:)`` whose name is not one folder.
    public static func standard(
        baseURL: URL? = nil, cache: StandardStack.Cache = .memory, auth: StandardStack.Auth? = nil, hud: (any HUDPresenter)? = nil,
        transport: any HTTPTransport = CurlTransport(), configuration: Configuration = .default,
        customize: (inout Builder) throws -> Void = { _ in }
    ) throws -> Client {
        var configuration = configuration
        if let baseURL { configuration.baseURL = baseURL }
        var builder = Builder(transport: transport, configuration: configuration)
        if let hud { builder.add(HUDMiddleware(presenter: hud)) }
        builder.add(LoggingMiddleware.fromEnvironment())
        switch auth {
        case .bearer(let token, let refresh)?: builder.add(AuthTokenMiddleware(configuration: .init(token: token, refresh: refresh)))
        case .signed(let signer)?: builder.add(SigningMiddleware(signer: signer))
        case nil: break
        }
        builder.add(URLEncodingMiddleware())
        switch cache {
        case .none: break
        case .memory: builder.add(CacheMiddleware(store: MemoryCacheStore()))
        case .sqlite(let path): builder.add(CacheMiddleware(store: try SQLiteCacheStore(path: path)))
        case .userCache(let app):
            let path = try StandardStack.Cache.userCachePath(app: app, environment: ProcessInfo.processInfo.environment)
            builder.add(CacheMiddleware(store: try SQLiteCacheStore(path: path)))
        case .store(let store): builder.add(CacheMiddleware(store: store))
        }
        builder.add(RetryMiddleware(budget: RetryBudget()))
        builder.add(ReachabilityGateMiddleware(monitor: try LinuxReachabilityMonitor()))
        builder.add(GzipMiddleware())
        try customize(&builder)
        return builder.build()
    }
}
