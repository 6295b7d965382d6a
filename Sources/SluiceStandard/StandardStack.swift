import Foundation
import Sluice
import SluiceCache
import SluiceSigning

/// The choices `Client.standard(baseURL:cache:auth:hud:configuration:customize:)` takes:
/// where the cache lives and how requests are authorised.
///
/// ```swift
/// let client = try Client.standard(
///     baseURL: URL(string: "https://api.example.com/v1"), cache: .sqlite("/var/cache/app/http.sqlite"),
///     auth: .bearer { try await keychain.accessToken() })
/// ```
public enum StandardStack {
    /// Where responses are cached.
    public enum Cache: Sendable {
        /// No cache.
        case none
        /// In memory, for the process's lifetime.
        case memory
        /// In a SQLite file at this path (created 0600), across runs.
        case sqlite(String)
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
