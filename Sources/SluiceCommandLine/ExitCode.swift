import Sluice

/// The exit codes of `sluice`, as `sluice --help` lists them: 0 for success, 2 for bad usage,
/// 3/4/5 for an HTTP 3xx/4xx/5xx with `--check-status`, and one code per kind of failure.
///
/// ```swift
/// ExitCode(for: SluiceError(.timedOut, "…"))      // .timedOut (8)
/// ExitCode(status: 404, checkStatus: true)        // .clientError (4)
/// ```
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// The request was made and answered (any status, unless --check-status).
    case success = 0
    /// Another failure.
    case failure = 1
    /// Bad usage: an unknown flag, a bad value or item, a URL that is not http(s).
    case usage = 2
    /// With --check-status: the answer was 3xx.
    case redirection = 3
    /// With --check-status: the answer was 4xx.
    case clientError = 4
    /// With --check-status: the answer was 5xx.
    case serverError = 5
    /// The connection was refused or the host unreachable.
    case cannotConnect = 6
    /// The host name could not be resolved.
    case dnsFailure = 7
    /// --timeout (or a connect timeout) passed.
    case timedOut = 8
    /// TLS failed: certificate, host name or pin.
    case tlsFailure = 9
    /// The connection broke mid-way.
    case connectionLost = 10
    /// The server's reply was not valid HTTP.
    case invalidResponse = 11
    /// More redirects than allowed.
    case tooManyRedirects = 12
    /// No network.
    case offline = 13
    /// A file could not be written (--download, --har, the cache).
    case writeFailed = 14
    /// A download's checksum did not match.
    case checksumMismatch = 15
    /// A body was larger than the limit.
    case bodyTooLarge = 16
    /// Interrupted.
    case cancelled = 17

    /// The code for a failed call.
    public init(for error: SluiceError) {
        self =
            switch error.code {
            case .cannotConnect: .cannotConnect
            case .dnsFailure: .dnsFailure
            case .timedOut: .timedOut
            case .tlsFailure: .tlsFailure
            case .connectionLost: .connectionLost
            case .invalidResponse: .invalidResponse
            case .tooManyRedirects: .tooManyRedirects
            case .offline: .offline
            case .writeFailed: .writeFailed
            case .checksumMismatch: .checksumMismatch
            case .bodyTooLarge: .bodyTooLarge
            case .cancelled: .cancelled
            case .invalidURL, .invalidHeader, .invalidBody: .usage
            default: .failure
            }
    }

    /// The code for a response: success, or 3/4/5 by its class when `checkStatus`.
    public init(status: Int, checkStatus: Bool) {
        guard checkStatus else { self = .success; return }
        self =
            switch status {
            case 300..<400: .redirection
            case 400..<500: .clientError
            case 500..<600: .serverError
            default: .success
            }
    }

    /// What `--help` says of it.
    public var meaning: String {
        switch self {
        case .success: "the request was made and answered (any status, unless --check-status)"
        case .failure: "another failure"
        case .usage: "bad usage: an unknown flag, a bad value or item, a URL that is not http(s)"
        case .redirection: "with --check-status: the answer was 3xx"
        case .clientError: "with --check-status: the answer was 4xx"
        case .serverError: "with --check-status: the answer was 5xx"
        case .cannotConnect: "the connection was refused or the host unreachable"
        case .dnsFailure: "the host name could not be resolved"
        case .timedOut: "--timeout (or a connect timeout) passed"
        case .tlsFailure: "TLS failed: certificate, host name or pin"
        case .connectionLost: "the connection broke mid-way"
        case .invalidResponse: "the server's reply was not valid HTTP"
        case .tooManyRedirects: "more redirects than allowed"
        case .offline: "no network"
        case .writeFailed: "a file could not be written (--download, --har, the cache)"
        case .checksumMismatch: "a download's checksum did not match"
        case .bodyTooLarge: "a body was larger than the limit"
        case .cancelled: "interrupted"
        }
    }
}
