import CCurl
import Sluice

/// What libcurl said about a failed transfer: its `CURLcode`, the code's name, and curl's detailed
/// message. It is the `SluiceError.underlying` of every error `CurlTransport` throws for a curl
/// failure, so nothing curl knew is lost.
///
/// ```swift
/// import Sluice
/// import SluiceCurl
///
/// do {
///     _ = try await client.get("https://127.0.0.1:9/")
/// } catch let error as SluiceError {
///     if let curl = error.underlying as? CurlError { print(curl.code, curl.detail) }  // 7 "Failed to connect…"
/// }
/// ```
public struct CurlError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `CURLcode`, e.g. 7 for `CURLE_COULDNT_CONNECT`.
    public let code: Int
    /// `curl_easy_strerror(code)`: "Couldn't connect to server".
    public let summary: String
    /// curl's message for this transfer (`CURLOPT_ERRORBUFFER`), when it gave one.
    public let detail: String

    /// A curl error: its code, curl's summary of it, and the detail curl wrote.
    public init(code: Int, summary: String, detail: String) {
        self.code = code
        self.summary = summary
        self.detail = detail
    }

    init(_ code: CURLcode, detail: String) {
        self.init(code: Int(code.rawValue), summary: String(cString: curl_easy_strerror(code)), detail: detail)
    }

    public var description: String {
        "curl error \(code) (\(summary))" + (detail.isEmpty ? "" : ": \(detail)")
    }

    /// The stable Sluice code for this curl code.
    public var sluiceCode: SluiceError.Code {
        // A code no curl has (negative, or past 32 bits) is a code of none of the kinds below.
        guard let code = UInt32(exactly: code) else { return .other }
        // curl also reports replies it cannot read ("Received HTTP/0.9", "Unsupported HTTP version
        // in response", "Unsupported response code") as an unsupported protocol; only a scheme it
        // will not speak ("Protocol "ftp" not supported…", from a redirect) is a URL problem.
        if code == CURLE_UNSUPPORTED_PROTOCOL.rawValue && !detail.isEmpty && !detail.hasPrefix("Protocol") {
            return .invalidResponse
        }
        return switch code {
        case CURLE_UNSUPPORTED_PROTOCOL.rawValue, CURLE_URL_MALFORMAT.rawValue: .invalidURL
        case CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue: .dnsFailure
        case CURLE_COULDNT_CONNECT.rawValue, CURLE_INTERFACE_FAILED.rawValue: .cannotConnect  // and the local interface or address it was to go out from
        case CURLE_OPERATION_TIMEDOUT.rawValue: .timedOut
        case CURLE_SSL_CONNECT_ERROR.rawValue, CURLE_PEER_FAILED_VERIFICATION.rawValue,
            CURLE_SSL_CERTPROBLEM.rawValue, CURLE_SSL_CIPHER.rawValue, CURLE_SSL_CACERT_BADFILE.rawValue,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH.rawValue, CURLE_SSL_INVALIDCERTSTATUS.rawValue,
            CURLE_SSL_ISSUER_ERROR.rawValue, CURLE_SSL_CRL_BADFILE.rawValue, CURLE_SSL_ENGINE_NOTFOUND.rawValue,
            CURLE_SSL_ENGINE_SETFAILED.rawValue, CURLE_SSL_ENGINE_INITFAILED.rawValue, CURLE_USE_SSL_FAILED.rawValue,
            CURLE_SSL_SHUTDOWN_FAILED.rawValue, CURLE_SSL_CLIENTCERT.rawValue:
            .tlsFailure
        case CURLE_TOO_MANY_REDIRECTS.rawValue: .tooManyRedirects
        case CURLE_FILESIZE_EXCEEDED.rawValue: .bodyTooLarge
        case CURLE_GOT_NOTHING.rawValue, CURLE_RECV_ERROR.rawValue, CURLE_SEND_ERROR.rawValue,
            CURLE_PARTIAL_FILE.rawValue:
            .connectionLost
        case CURLE_WEIRD_SERVER_REPLY.rawValue, CURLE_BAD_CONTENT_ENCODING.rawValue, CURLE_HTTP2.rawValue,
            CURLE_HTTP2_STREAM.rawValue:
            .invalidResponse
        case CURLE_READ_ERROR.rawValue: .invalidBody
        case CURLE_WRITE_ERROR.rawValue: .writeFailed
        default: .other
        }
    }
}
