// `make demo`: a pipeline assembled in code, an in-house middleware, debug logging toggled by type,
// a per-middleware trace, and errors that name their stage. It runs over MockTransport, so it needs
// no network; swap in `CurlTransport()` (module SluiceCurl) for the real thing.
import Foundation
import Sluice
import SluiceLogging
import SluiceTesting

/// An in-house middleware: stamps every request with the app's tenant.
struct TenantMiddleware: Middleware {
    let tenant: String

    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        try request.headers.set(name: "X-Tenant", value: tenant)
        return try await next(request, context)
    }
}

struct User: Decodable {
    let id: Int
    let name: String
}

// A scripted server: /users/42 exists, everything else is a 404, /boom cannot connect.
let transport = MockTransport { request, _ in
    switch request.url.path {
    case "/v1/users/42":
        let tenant = request.headers["X-Tenant"] ?? "?"
        return .json(#"{"id":42,"name":"Ada (tenant \#(tenant))"}"#)
    case "/v1/boom":
        return .error(SluiceError(.cannotConnect, "connection refused by 127.0.0.1:9"))
    default:
        return .json(#"{"error":"not found"}"#, status: .notFound)
    }
}

var builder = Client.Builder(transport: transport, configuration: .init(baseURL: URL(string: "https://api.example.com/v1")))
builder.add(TenantMiddleware(tenant: "acme"))
// Debug logging, one line per call, printed here; lands outside the tenant middleware, as logging
// comes first. `LoggingMiddleware.fromEnvironment()` would leave it to SLUICE_LOG instead.
builder.add(LoggingMiddleware(level: .basic, sink: .closure { print("  [log] " + $0) }))
let client = builder.build()

print("1. A typed call through the pipeline, with debug logging on:")
let user = try await client.get("users/42", as: User.self)
print("  decoded:", user.name)

print("\n2. The same client with debug logging toggled off (nothing else re-wired):")
let quiet = client.rebuilt { $0.setEnabled(false, for: LoggingMiddleware.self) }
print("  status:", try await quiet.get("users/42").status)

print("\n3. Errors name the stage that failed:")
do {
    _ = try await quiet.get("boom")
} catch let error as SluiceError {
    print("  code: \(error.code), stage: \(error.stage!)")
    print("  \(error)")
}
do {
    _ = try await quiet.get("users/7", as: User.self)
} catch let error as SluiceError {
    print("  \(error)")
}

print("\n4. Tracing: each middleware's own time, inner stages excluded:")
let traced = client.rebuilt { $0.configuration.isTracing = true }
let response = try await traced.get("users/42")
print(response.trace!.description.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
