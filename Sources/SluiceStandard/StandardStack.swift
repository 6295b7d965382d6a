import Foundation
import Sluice
import SluiceCache
import SluiceSigning

/// The choices `Client.standard(baseURL:cache:auth:hud:transport:configuration:customize:)` takes:
/// where the cache lives and how requests are authorised.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceStandard
///
/// let client = try Client.standard(
///     baseURL: URL(string: "https://api.example.com/v1"), cache: .userCache(app: "my-app"),
///     auth: .bearer { "my-token" })
/// ```
public enum StandardStack {
    /// Where responses are cached.
    public enum Cache: Sendable {
        /// No cache.
        case none
        /// In memory, for the process's lifetime.
        case memory
        /// In a SQLite file at this path (created 0600, and the folders on the way to it that do
        /// not exist yet, 0700), across runs.
        case sqlite(String)
        /// In a SQLite file `http.sqlite` in `app`'s folder of the user's cache directory:
        /// `$XDG_CACHE_HOME/app/`, else `$HOME/.cache/app/` (made 0700 when missing), else the
        /// temporary directory's. Where a new app should start: no path to choose, none that needs
        /// root. `app` is one folder name; anything else is `.misconfigured`.
        case userCache(app: String)
        /// In a store of your own (Redis, or anything that is a `CacheStore`).
        case store(any CacheStore)
    }

    /// How requests are authorised.
    public enum Auth: Sendable {
        /// `Authorization: Bearer <token>`, from `token`; on a 401 `refresh` runs once (shared by
        /// every request that got one) and the request is sent again.
        case bearer(token: @Sendable () async throws -> String, refresh: @Sendable () async throws -> String)
        /// Every request signed by `signer` (AWS SigV4, OAuth 1.0a, HMAC parameters, or yours).
        case signed(any Signer)

        /// A bearer token that is fetched again the same way after a 401.
        public static func bearer(_ token: @escaping @Sendable () async throws -> String) -> Auth {
            .bearer(token: token, refresh: token)
        }
    }
}

extension StandardStack.Cache {
    /// The file ``userCache(app:)`` names, for `environment`.
    ///
    /// - Throws: `.misconfigured` when `app` is not one folder name.
    static func userCachePath(app: String, environment: [String: String]) throws(SluiceError) -> String {
        guard !app.isEmpty, app != ".", app != "..", !app.contains("/"), !app.utf8.contains(0) else {
            throw SluiceError(
                .misconfigured, "the cache's app name \(String(reflecting: app)) must be one folder name: not empty, not . or .., no / or NUL")
        }
        let base: String
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.cache"
        } else {
            base = NSTemporaryDirectory()
        }
        return (base.hasSuffix("/") ? base : base + "/") + app + "/http.sqlite"
    }
}
