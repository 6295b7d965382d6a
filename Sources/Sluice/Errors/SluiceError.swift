import Foundation

/// The error a call throws: a stable ``Code`` to match on, the ``PipelineStage`` that failed, a
/// message that says what was wrong, and the underlying cause.
///
/// A call through a ``Client`` or a ``Pipeline`` throws `SluiceError`, or `CancellationError`
/// when its task was cancelled; nothing else. Other error types reach you only as a
/// `SluiceError`'s ``underlying`` (`CurlError`, ``HTTPFields/FieldError``), or when you call a part
/// directly, outside a call:
/// - `LinuxReachabilityMonitor.init()` throws `ReachabilityError` when it cannot open its
///   netlink socket;
/// - opening a `SQLiteCacheStore` throws `SQLiteCacheError`, and a `RedisCacheStore` call throws
///   `RedisCacheError` (inside a call, `CacheMiddleware` treats every store error as a miss);
///   making a client that opens them (`Client.standard`) throws theirs too;
/// - `MockTransport.send` throws `MockTransport.ExhaustedError` when a test's script runs out
///   (through a pipeline it is the ``underlying`` of a ``Code/other``).
///
/// `SluiceError` is a struct with static codes, not an enum, so a new code never breaks a `switch`
/// in your code. `CancellationError` is never wrapped: a cancelled task sees `CancellationError`.
///
/// ```swift
/// import Sluice
///
/// do {
///     let response = try await client.get("/users/42")
/// } catch let error as SluiceError where error.code == .timedOut {
///     print("slow server; stage:", error.stage ?? "unknown")
/// } catch let error as SluiceError {
///     switch error.code {
///     case .offline, .cannotConnect: showOfflineBanner()
///     default: print(error)       // "[transport CurlTransport] timedOut: …"
///     }
/// }
/// ```
///
/// Inside a ``Pipeline`` every error is attributed to the stage that threw it: an error that is not a
/// `SluiceError` is wrapped with code ``Code/other`` and kept in ``underlying``; a `SluiceError` with
/// no stage gets the stage filled in; one that already names a stage passes outward unchanged, so
/// the stage is always the innermost one that failed. That holds for errors read from a streamed
/// body too (``HTTPResponse/bodyStream``): a decryptor or decoder that fails while the caller
/// reads is named as it would be had it failed before answering.
public struct SluiceError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Match on it; new codes may be added in any release.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The URL cannot be sent: unparsable, relative with no base URL, or a scheme that is not
        /// `http` or `https`.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// A header name or value is not allowed (CR, LF, NUL, or a non-token name).
        public static let invalidHeader = Code(rawValue: "invalidHeader")
        /// A request body cannot be read or sent (a missing file, a stream already consumed).
        public static let invalidBody = Code(rawValue: "invalidBody")
        /// The server's reply is not valid HTTP, or is truncated.
        public static let invalidResponse = Code(rawValue: "invalidResponse")
        /// The machine has no network; nothing was sent.
        public static let offline = Code(rawValue: "offline")
        /// A deadline or timeout passed before the exchange finished.
        public static let timedOut = Code(rawValue: "timedOut")
        /// A connection could not be made (refused, unreachable).
        public static let cannotConnect = Code(rawValue: "cannotConnect")
        /// The connection broke after it was made (reset, closed early).
        public static let connectionLost = Code(rawValue: "connectionLost")
        /// The host name could not be resolved.
        public static let dnsFailure = Code(rawValue: "dnsFailure")
        /// TLS failed: handshake, certificate, or pin.
        public static let tlsFailure = Code(rawValue: "tlsFailure")
        /// A body is larger than the configured limit.
        public static let bodyTooLarge = Code(rawValue: "bodyTooLarge")
        /// A part of a server's answer other than its body (its header section, its trailers, the
        /// framing of a chunked body) is larger than the configured limit.
        public static let responseTooLarge = Code(rawValue: "responseTooLarge")
        /// Writing a response body to disk failed (disk full, no permission, missing folder).
        public static let writeFailed = Code(rawValue: "writeFailed")
        /// A response body could not be decoded into the requested type.
        public static let decodingFailed = Code(rawValue: "decodingFailed")
        /// The response status is not one the caller accepts.
        public static let unacceptableStatus = Code(rawValue: "unacceptableStatus")
        /// The response's media type is not one the caller accepts.
        public static let unacceptableContentType = Code(rawValue: "unacceptableContentType")
        /// The call was cancelled: by its task, or by ``Client/cancelAll()`` and its kin. Thrown only
        /// when ``Client/Configuration/reportsCancellationAsError`` is set; otherwise a cancelled
        /// call throws `CancellationError`.
        public static let cancelled = Code(rawValue: "cancelled")
        /// A downloaded file's checksum is not the one expected; the file was not kept.
        public static let checksumMismatch = Code(rawValue: "checksumMismatch")
        /// The client is set up so that a request cannot do what it asks: an option that nothing
        /// in the chain reads, a setting that contradicts another.
        public static let misconfigured = Code(rawValue: "misconfigured")
        /// More redirects than allowed.
        public static let tooManyRedirects = Code(rawValue: "tooManyRedirects")
        /// A stage threw an error that is not a `SluiceError`; see ``SluiceError/underlying``.
        public static let other = Code(rawValue: "other")
    }

    /// What kind of failure this is.
    public var code: Code
    /// Which stage failed; `nil` when the error was thrown outside a pipeline.
    public var stage: PipelineStage?
    /// What was wrong, for people: names the bad value and the rule it broke.
    public var message: String
    /// The error this one wraps, if any (a `DecodingError`, a curl error, your middleware's error).
    public var underlying: (any Error)?
    /// The response that led to the error, when there was one (`.unacceptableStatus`,
    /// `.decodingFailed`), so an API's error payload is never lost.
    public var response: HTTPResponse?
    /// The server's RFC 9457 problem document, when it answered a refused call with one
    /// (`application/problem+json`).
    public var problem: ProblemDetails?

    /// An error with `code` and `message`; `underlying`, `stage` and `response` when known.
    ///
    /// The message is kept with every character that could drive a terminal escaped (C0 but line
    /// breaks and tabs, DEL, C1 and bidirectional controls, as `\u{1B}`): it often quotes what a
    /// server sent (a reason phrase, a field, a body), and it is printed, logged and shown as it is.
    public init(
        _ code: Code, _ message: String, underlying: (any Error)? = nil, stage: PipelineStage? = nil,
        response: HTTPResponse? = nil
    ) {
        self.code = code
        self.message = TerminalText.escape(message, keepingLineBreaks: true)
        self.underlying = underlying
        self.stage = stage
        self.response = response
    }

    public var description: String {
        var text = stage.map { "[\($0)] " } ?? ""
        text += "\(code): \(message)"
        // Other codes say what was wrong in the message; `.other` only says who threw what.
        if let underlying, code == .other {
            text += " (caused by \(String(reflecting: underlying)))"
        }
        return text
    }

    /// Attributes `error` to `stage`, as the pipeline does at every hop.
    ///
    /// - `CancellationError` is returned unchanged.
    /// - A `SluiceError` that names a stage is returned unchanged (the innermost stage wins).
    /// - A `SluiceError` without a stage gets `stage`.
    /// - Anything else is wrapped as ``Code/other`` with the error in ``underlying``.
    package static func attributing(_ error: any Error, to stage: PipelineStage) -> any Error {
        if error is CancellationError { return error }
        if var sluice = error as? SluiceError {
            if sluice.stage == nil { sluice.stage = stage }
            return sluice
        }
        return SluiceError(.other, "\(stage) threw \(type(of: error))", underlying: error, stage: stage)
    }

    /// Whether `error` says the call was cancelled: a `CancellationError`, or `.cancelled` (a
    /// client that reports cancellation as an error). The one rule for stages that count
    /// outcomes and must not count a cancelled call as a failure.
    package static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? SluiceError)?.code == .cancelled
    }
}

extension SluiceError: LocalizedError {
    /// The same text as ``description``, so `error.localizedDescription` says what went wrong.
    public var errorDescription: String? { description }
}

extension SluiceError.Code {
    /// Lets a `catch` clause match a code directly: `catch SluiceError.Code.timedOut { … }`.
    public static func ~= (code: SluiceError.Code, error: any Error) -> Bool {
        (error as? SluiceError)?.code == code
    }
}
