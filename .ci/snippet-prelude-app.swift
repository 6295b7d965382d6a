// The app's own types that README, CONTRIBUTING and DocC article samples take as given: a `User`,
// a token store. Nothing else: each of those samples brings its own imports and values, so it
// compiles (and runs) pasted into an app as it is. Type-checked with every sample by
// .ci/check-snippets; never run.
import Foundation
import Sluice

struct User: Codable, Sendable { let id: Int; let name: String }
struct NewUser: Codable, Sendable { let name: String }
struct Order: Codable, Sendable { let id: Int }
struct NewOrder: Codable, Sendable { let item: String }
struct Feed: Codable, Sendable { let items: [String] }

enum Tokens { static func current() async throws -> String { "token" } }
enum Keychain {
    static func accessToken() async throws -> String { "token" }
    static func token() async throws -> String { "token" }
}
enum AuthClient { static func refreshAccessToken() async throws -> String { "token" } }
enum Banner {
    static func show(_ text: String) async {}
    static func progress(_ fraction: Double?) async {}
    static func hide() async {}
}

/// The app's own middleware.
struct AuditMiddleware: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await next(request, context)
    }
}
