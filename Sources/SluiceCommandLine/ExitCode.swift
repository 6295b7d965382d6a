import Sluice
import SluiceCurl

/// The exit codes of `sluice`, as `sluice --help` and docs/command-line.md list them: curl's numbers for
/// transport failures that curl has a number for (6 DNS, 7 connect, 28 timeout, 35 and 60 TLS,
/// 47 redirects…), httpie's 3/4/5 for an HTTP 3xx/4xx/5xx with `--check-status`, 2 for bad usage,
/// and 130 for an interrupt, as a shell reports one.
///
/// ```swift
/// import Sluice
/// import SluiceCommandLine
///
/// ExitCode(for: SluiceError(.timedOut, "…"))      // .timedOut (28)
/// ExitCode(status: 404, checkStatus: true)        // .clientError (4)
/// ```
package enum ExitCode: Int32, Sendable, CaseIterable {
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
    /// The host name could not be resolved (curl's 6).
    case dnsFailure = 6
    /// The connection was refused, the host unreachable, or the network down (curl's 7).
    case cannotConnect = 7
    /// The server's reply was not valid HTTP (curl's 8).
    case invalidResponse = 8
    /// The body ended before its announced length (curl's 18).
    case partialBody = 18
    /// A file could not be written: --download, --har, the cache, standard output (curl's 23).
    case writeFailed = 23
    /// --timeout (or a connect timeout) passed (curl's 28).
    case timedOut = 28
    /// The TLS handshake failed (curl's 35).
    case tlsFailure = 35
    /// More redirects than --max-redirects (curl's 47).
    case tooManyRedirects = 47
    /// The server answered nothing at all (curl's 52).
    case emptyReply = 52
    /// Sending the request failed (curl's 55).
    case sendFailed = 55
    /// The connection broke while the answer was read (curl's 56).
    case connectionLost = 56
    /// The server's certificate or name could not be verified (curl's 60).
    case certificateFailure = 60
    /// A body was larger than the limit (curl's 63).
    case bodyTooLarge = 63
    /// The server's key did not match --pin (curl's 90).
    case pinMismatch = 90
    /// A download's checksum did not match (sluice's own: curl checks none).
    case checksumMismatch = 101
    /// Interrupted (Ctrl-C): 128 + SIGINT, what a shell reports for a process a SIGINT ended.
    case interrupted = 130

    /// The code for a failed call: curl's own number when curl failed the transfer and that
    /// number is one of these, otherwise the number for the kind of failure.
    package init(for error: SluiceError) {
        if let curl = Self.curlError(in: error), let code = ExitCode(rawValue: Int32(curl.code)), code.rawValue > 5,
            code != .interrupted, code != .checksumMismatch
        {
            self = code
            return
        }
        self =
            switch error.code {
            case .cannotConnect, .offline: .cannotConnect
            case .dnsFailure: .dnsFailure
            case .timedOut: .timedOut
            case .tlsFailure: .tlsFailure
            case .connectionLost: .connectionLost
            case .invalidResponse: .invalidResponse
            case .tooManyRedirects: .tooManyRedirects
            case .writeFailed: .writeFailed
            case .checksumMismatch: .checksumMismatch
            case .bodyTooLarge: .bodyTooLarge
            case .cancelled: .interrupted
            case .invalidURL, .invalidHeader, .invalidBody: .usage
            default: .failure
            }
    }

    /// The code for a response: success, or 3/4/5 by its class when `checkStatus`.
    package init(status: Int, checkStatus: Bool) {
        guard checkStatus else { self = .success; return }
        self =
            switch status {
            case 300..<400: .redirection
            case 400..<500: .clientError
            case 500..<600: .serverError
            default: .success
            }
    }

    /// The `CurlError` under `error`, looking through errors that wrap another.
    static func curlError(in error: SluiceError) -> CurlError? {
        var next: (any Error)? = error.underlying
        for _ in 0..<8 {
            switch next {
            case let curl as CurlError: return curl
            case let wrapped as SluiceError: next = wrapped.underlying
            default: return nil
            }
        }
        return nil
    }

    /// What `--help` says of it.
    package var meaning: String {
        switch self {
        case .success: "the request was made and answered (any status, unless --check-status)"
        case .failure: "another failure"
        case .usage: "bad usage: an unknown flag, a bad value or item, a URL that is not http(s)"
        case .redirection: "with --check-status: the answer was 3xx"
        case .clientError: "with --check-status: the answer was 4xx"
        case .serverError: "with --check-status: the answer was 5xx"
        case .dnsFailure: "the host name could not be resolved"
        case .cannotConnect: "the connection was refused, the host unreachable, or the network down"
        case .invalidResponse: "the server's reply was not valid HTTP"
        case .partialBody: "the body ended before its announced length"
        case .writeFailed: "a file could not be written (--download, --har, the cache, standard output)"
        case .timedOut: "--timeout (or a connect timeout) passed"
        case .tlsFailure: "the TLS handshake failed"
        case .tooManyRedirects: "more redirects than --max-redirects"
        case .emptyReply: "the server answered nothing at all"
        case .sendFailed: "sending the request failed"
        case .connectionLost: "the connection broke while the answer was read"
        case .certificateFailure: "the server's certificate or name could not be verified"
        case .bodyTooLarge: "a body was larger than the limit"
        case .pinMismatch: "the server's key did not match --pin"
        case .checksumMismatch: "a download's checksum did not match (sluice's own code)"
        case .interrupted: "interrupted (Ctrl-C)"
        }
    }
}
