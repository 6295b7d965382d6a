import Foundation

/// The real servers `make test` starts (`Tests/Servers/*.sh`) and announces in the environment:
/// nginx as `SLUICE_NGINX_URL` (and its TLS, h2c and proxy variants), httpbin as
/// `SLUICE_HTTPBIN_URL`.
///
/// ```swift
/// let echo = try InteropServers.httpbin("/post")     // http://127.0.0.1:PORT/post
/// ```
///
/// A missing variable throws an error that says how to start the servers, so a test run outside
/// `make test` fails with that message rather than a connection error.
package enum InteropServers {
    package struct Missing: Error, CustomStringConvertible {
        package let variable: String
        package var description: String {
            "\(variable) is not set: run the tests through `make test`, which starts nginx and httpbin, "
                + "or start them with Tests/Servers/nginx.sh and Tests/Servers/httpbin.sh and source the .env files they write"
        }
    }

    /// httpbin's URL for `path`.
    package static func httpbin(_ path: String = "") throws -> URL {
        try url("SLUICE_HTTPBIN_URL", path)
    }

    /// nginx's (plain HTTP/1.1) URL for `path`.
    package static func nginx(_ path: String = "") throws -> URL {
        try url("SLUICE_NGINX_URL", path)
    }

    /// The environment variable `name`'s value, joined with `path`.
    package static func url(_ name: String, _ path: String = "") throws -> URL {
        let base = try value(name)
        guard let url = URL(string: base + path) else { throw Missing(variable: "\(name) (not a URL: \(base))") }
        return url
    }

    /// The environment variable `name`, which the server scripts export.
    package static func value(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { throw Missing(variable: name) }
        return value
    }
}
