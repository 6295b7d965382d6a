import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceDownload
import SluiceGzip
import SluiceHUD
import SluiceHeaders
import SluiceLogging
import SluiceMultipart
import SluiceRetry
import SluiceSigning

/// The transport and the middleware the flags ask for.
extension SluiceCommand {
    func transportConfiguration(_ invocation: Invocation, url: URL) throws -> CurlTransport.Configuration {
        var configuration = CurlTransport.Configuration()
        if let seconds = invocation.timeout { configuration.requestTimeout = .clampedSeconds(seconds) }
        if invocation.http2 { configuration.httpVersion = url.scheme == "https" ? .http2 : .http2PriorKnowledge }
        if let certificate = invocation.certificate {
            configuration.tls.clientCertificate = .init(path: certificate, format: .pem, keyPath: invocation.key)
        }
        if let pin = invocation.pin { configuration.tls.pinnedPublicKey = pin }
        if invocation.insecure { configuration.tls.verifyPeer = false }  // the transport warns on standard error
        if let file = invocation.verify {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw UsageError("--verify \(file): no such CA file (yes, no or the path of a PEM file)")
            }
            configuration.tls.caFile = file
        }
        if let proxy = invocation.proxies[url.scheme?.lowercased() ?? "http"] { configuration.proxy = proxy }
        // `Header:` items: a field curl would add is left out too.
        for name in Self.omittedFields(invocation) {
            if name.lowercased() == "user-agent" { configuration.userAgent = nil } else { configuration.omittedDefaultFields.append(name) }
        }
        if invocation.authType == .digest, let credentials = invocation.auth, let colon = credentials.firstIndex(of: ":") {
            // curl answers the server's challenge, for the URL's origin only.
            configuration.digestCredentials = .init(
                user: String(credentials[..<colon]), password: String(credentials[credentials.index(after: colon)...]), for: url)
        }
        return configuration
    }

    func addMiddleware(_ invocation: Invocation, to builder: inout Client.Builder, recorder: HARRecorder?) throws {
        // As httpie and curl: redirects are followed only when asked, 30 at most unless told.
        let redirects: RedirectPolicy = invocation.follow ? .follow(max: invocation.maxRedirects ?? 30) : .none
        builder.replace(RedirectMiddleware.self, with: RedirectMiddleware(configuration: .init(policy: redirects)))
        if isatty(STDERR_FILENO) == 1 { builder.add(HUDMiddleware(presenter: TerminalHUD())) }
        // -v prints the exchange itself (see OutputOptions); -vv and -vvv add the middleware's log.
        if invocation.verbosity > 1 {
            let level: LogLevel = invocation.verbosity == 2 ? .headers : .body
            builder.add(LoggingMiddleware(level: level, sink: .standardError))
        }
        let omitted = Self.omittedFields(invocation)
        if !omitted.isEmpty { builder.add(OmittedFieldsMiddleware(names: omitted), at: .network) }
        if let recorder { builder.add(HARRecorderMiddleware(recorder: recorder)) }
        if let folder = invocation.cache {
            let directory = folder.isEmpty ? defaultCacheDirectory() : folder
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw SluiceError(.writeFailed, "cannot make the cache folder \(directory): \(error.localizedDescription)")
            }
            builder.add(CacheMiddleware(store: try SQLiteCacheStore(path: directory + "/cache.sqlite")))
        }
        if let retries = invocation.retry {
            builder.add(RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(maximumAttempts: retries + 1))))
        }
        // As httpie: gzip and deflate answers are asked for and decoded (--keep-encoding prints their
        // bytes; a download keeps what the server sent, so a resume's ranges stay the server's).
        // --gzip also compresses request bodies of 1 KiB or more.
        if invocation.gzip {
            builder.add(GzipMiddleware(configuration: .init(requestCompression: .always)))
        } else if !invocation.keepEncoding, invocation.download == nil {
            builder.add(GzipMiddleware())
        }
        let signers = [invocation.sign != nil, invocation.awsSigV4 != nil, invocation.oauth1].filter { $0 }.count
        guard signers <= 1 else { throw UsageError("--sign, --aws-sigv4 and --oauth1 cannot be combined") }
        if let keyID = invocation.sign {
            guard let secret = environment["SLUICE_HMAC_SECRET"], !secret.isEmpty else {
                throw UsageError("--sign hmac:\(keyID) needs the secret in SLUICE_HMAC_SECRET")
            }
            builder.add(HeadersMiddleware(keyID: keyID))
            builder.add(SigningMiddleware(signer: HMACParameterSigner(configuration: .init(key: Data(secret.utf8)))))
        }
        if let (region, service) = invocation.awsSigV4 {
            guard let id = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] else {
                throw UsageError("--aws-sigv4 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
            }
            builder.add(
                SigningMiddleware(
                    signer: AWSSigV4Signer(
                        accessKeyID: id, secretAccessKey: secret,
                        sessionToken: environment["AWS_SESSION_TOKEN"], region: region, service: service)))
        }
        if invocation.oauth1 {
            guard let key = environment["SLUICE_OAUTH1_CONSUMER_KEY"], let secret = environment["SLUICE_OAUTH1_CONSUMER_SECRET"] else {
                throw UsageError("--oauth1 needs SLUICE_OAUTH1_CONSUMER_KEY and SLUICE_OAUTH1_CONSUMER_SECRET")
            }
            builder.add(
                SigningMiddleware(
                    signer: OAuth1Signer(
                        configuration: .init(
                            consumerKey: key, consumerSecret: secret,
                            token: environment["SLUICE_OAUTH1_TOKEN"], tokenSecret: environment["SLUICE_OAUTH1_TOKEN_SECRET"]))))
        }
    }

    func defaultCacheDirectory() -> String {
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/sluice" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/sluice"
    }

    static func cachePolicy(named name: String) -> CachePolicy {
        switch name {
        case "reload": .reloadIgnoringCache
        case "return-cache-else-load": .returnCacheElseLoad
        case "return-cache-dont-load": .returnCacheDontLoad
        case "offline-fallback": .offlineFallback
        default: .useProtocol
        }
    }
}

extension HeadersMiddleware {
    /// `X-Key-Id: KEYID` for `--sign`.
    fileprivate init(keyID: String) {
        self.init(configuration: .init(fields: ["X-Key-Id": keyID]))
    }
}

/// Takes out the fields `Header:` items name, whichever stage added them (`Accept-Encoding` from
/// the gzip middleware, say): at `.network`, just before the transport.
struct OmittedFieldsMiddleware: Middleware {
    static let defaultPosition = MiddlewarePosition.network
    let names: [String]

    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        for name in names { request.headers.remove(name: name) }
        return try await next(request, context)
    }
}
