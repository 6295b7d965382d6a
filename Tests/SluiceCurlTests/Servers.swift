import Foundation
import SluiceCurl
import Testing

/// The real servers `make test` starts (Tests/Servers/*.sh) and passes in the environment.
enum Servers {
    /// nginx's base URL, from `SLUICE_NGINX_URL`. Tests that need it fail with a clear message
    /// when it is missing: run them through `make test`, or start one with
    /// `Tests/Servers/nginx.sh up DIR` and export the URL it writes.
    static func nginx(sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        let value = try value("SLUICE_NGINX_URL", sourceLocation: sourceLocation)
        guard let url = URL(string: value) else {
            Issue.record("SLUICE_NGINX_URL is not a URL: \(value)", sourceLocation: sourceLocation)
            throw MissingServer()
        }
        return url
    }

    /// A value nginx.sh exported (`SLUICE_NGINX_TLS_URL`, `SLUICE_NGINX_CA`, …).
    static func value(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            Issue.record("\(name) is not set: run `make test` (it starts nginx)", sourceLocation: sourceLocation)
            throw MissingServer()
        }
        return value
    }

    struct MissingServer: Error {}
}

/// A transport with the default configuration changed by `change`.
func makeTransport(_ change: (inout CurlTransport.Configuration) -> Void = { _ in }) -> CurlTransport {
    var configuration = CurlTransport.Configuration.default
    change(&configuration)
    return CurlTransport(configuration: configuration)
}
