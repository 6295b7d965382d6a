import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceDownload
import SluiceGzip
import SluiceHeaders
import SluiceHUD
import SluiceLogging
import SluiceMultipart
import SluiceRetry
import SluiceSigning

/// The `sluice` program: parses its arguments, assembles a client from the middleware the flags
/// ask for, sends the request, and prints the answer. Everything but the process's exit lives
/// here, so the executable's `main.swift` is two lines.
///
/// ```swift
/// let code = await SluiceCommand(arguments: ["-v", "httpbin.org/get"]).run()
/// exit(code)
/// ```
public struct SluiceCommand: Sendable {
    public let arguments: [String]
    public let environment: [String: String]

    public init(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.arguments = arguments
        self.environment = environment
    }

    /// Runs the command; returns the exit code (see ``ExitCode``).
    public func run() async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(arguments)
        } catch {
            Self.error(error.message)
            return ExitCode.usage.rawValue
        }
        if invocation.help {
            Self.write(HelpText.text + "\n")
            return 0
        }
        if invocation.version {
            Self.write("sluice \(SluiceVersion.current) (\(CurlTransport.defaultUserAgent))\n")
            return 0
        }
        do {
            return try await perform(invocation).rawValue
        } catch let error as UsageError {
            Self.error(error.message)
            return ExitCode.usage.rawValue
        } catch let error as SluiceError {
            Self.error(error.message)
            return ExitCode(for: error).rawValue
        } catch is CancellationError {
            Self.error("interrupted")
            return ExitCode.cancelled.rawValue
        } catch {
            Self.error("\(error)")
            return ExitCode.failure.rawValue
        }
    }

    // MARK: The call

    private func perform(_ invocation: Invocation) async throws -> ExitCode {
        let url = URL(string: invocation.url)!
        let transport = CurlTransport(configuration: try transportConfiguration(invocation, url: url))
        var builder = Client.Builder(transport: transport)
        builder.environment = environment
        let recorder = invocation.har.map { _ in HARRecorder() }
        try addMiddleware(invocation, to: &builder, recorder: recorder)
        let client = builder.build()

        var request = try makeRequest(invocation, url: url)
        if invocation.offlineFallback { request.cachePolicy = .offlineFallback }
        if let policy = invocation.cachePolicy { request.cachePolicy = Self.cachePolicy(named: policy) }

        let output = OutputOptions(invocation)
        defer {
            if let recorder, let path = invocation.har {
                do {
                    try recorder.write(to: URL(fileURLWithPath: path))
                } catch {
                    Self.error("cannot write the HAR file \(path): \(error)")
                }
            }
        }

        if let path = invocation.download {
            let destination = URL(fileURLWithPath: path)
            if !invocation.resume {
                for suffix in [".sluice-partial", ".sluice-partial.json", ".sluice-partial.next"] { unlink(path + suffix) }
            }
            // --retry also bounds the automatic resumes after a broken connection or a timeout.
            let result = try await client.download(request, to: destination, configuration: .init(resumeAttempts: invocation.retry ?? 3))
            if output.responseHeaders { Self.write(output.head(of: result.response)) }
            let resumed = result.resumedFrom > 0 ? " (continued from byte \(result.resumedFrom))" : ""
            FileHandle.standardError.write(Data("sluice: saved \(result.bytes) bytes to \(path)\(resumed)\n".utf8))
            return ExitCode(status: result.response.status.code, checkStatus: invocation.checkStatus)
        }

        let response = try await client.send(request)
        if output.requestHeaders || output.requestBody, let sent = response.request {
            Self.write(try await output.describe(request: sent))
        }
        if output.responseHeaders { Self.write(output.head(of: response)) }
        if output.responseBody { Self.writeData(output.body(of: response)) }
        return ExitCode(status: response.status.code, checkStatus: invocation.checkStatus)
    }

    private func transportConfiguration(_ invocation: Invocation, url: URL) throws -> CurlTransport.Configuration {
        var configuration = CurlTransport.Configuration()
        if let seconds = invocation.timeout { configuration.requestTimeout = .milliseconds(Int64(seconds * 1000)) }
        if invocation.http2 { configuration.httpVersion = url.scheme == "https" ? .http2 : .http2PriorKnowledge }
        if let certificate = invocation.certificate {
            configuration.tls.clientCertificate = .init(path: certificate, format: .pem, keyPath: invocation.key)
        }
        if let pin = invocation.pin { configuration.tls.pinnedPublicKey = pin }
        if invocation.insecure { configuration.tls.verifyPeer = false }   // the transport warns on standard error
        return configuration
    }

    private func addMiddleware(_ invocation: Invocation, to builder: inout Client.Builder, recorder: HARRecorder?) throws {
        if isatty(STDERR_FILENO) == 1 { builder.add(HUDMiddleware(presenter: TerminalHUD())) }
        if invocation.verbosity > 0 {
            let level: LogLevel = [.basic, .headers, .body][invocation.verbosity - 1]
            builder.add(LoggingMiddleware(level: level, sink: .standardError))
        }
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
        if invocation.gzip { builder.add(GzipMiddleware()) }
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
            builder.add(SigningMiddleware(signer: AWSSigV4Signer(accessKeyID: id, secretAccessKey: secret,
                                                                 sessionToken: environment["AWS_SESSION_TOKEN"], region: region, service: service)))
        }
        if invocation.oauth1 {
            guard let key = environment["SLUICE_OAUTH1_CONSUMER_KEY"], let secret = environment["SLUICE_OAUTH1_CONSUMER_SECRET"] else {
                throw UsageError("--oauth1 needs SLUICE_OAUTH1_CONSUMER_KEY and SLUICE_OAUTH1_CONSUMER_SECRET")
            }
            builder.add(SigningMiddleware(signer: OAuth1Signer(configuration: .init(
                consumerKey: key, consumerSecret: secret,
                token: environment["SLUICE_OAUTH1_TOKEN"], tokenSecret: environment["SLUICE_OAUTH1_TOKEN_SECRET"]))))
        }
    }

    private func defaultCacheDirectory() -> String {
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

    // MARK: The request

    func makeRequest(_ invocation: Invocation, url: URL) throws -> HTTPRequest {
        var headers = HTTPFields()
        var query: [String] = []
        var fields: [(String, String)] = []       // name, JSON text
        var textFields: [(String, String)] = []
        var files: [(String, String)] = []
        var hasJSON = false
        for item in invocation.items {
            switch item {
            case .header(let name, let value):
                do {
                    try headers.append(name: name, value: value)
                } catch {
                    throw UsageError("the header \(String(reflecting: name)) cannot be sent: \(error.message)")
                }
            case .query(let name, let value):
                query.append(URLQuery.encode(name) + "=" + URLQuery.encode(value))
            case .field(let name, let value):
                fields.append((name, Self.jsonString(value)))
                textFields.append((name, value))
            case .jsonField(let name, let raw):
                guard let data = raw.data(using: .utf8),
                      let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
                      let normalized = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes]) else {
                    throw UsageError("\(name):=\(raw) is not valid JSON")
                }
                fields.append((name, String(decoding: normalized, as: UTF8.self)))
                hasJSON = true
            case .file(let name, let path):
                files.append((name, NSString(string: path).expandingTildeInPath))
            }
        }
        var target = url
        if !query.isEmpty { target = try URLQuery.appending(query.joined(separator: "&"), to: url) }
        var body = HTTPBody.empty
        if !files.isEmpty {
            guard !hasJSON else { throw UsageError("field:=json items cannot go in a multipart form (a field@file item is given)") }
            var form = MultipartFormData()
            for (name, value) in textFields { form.append(value, name: name) }
            for (name, path) in files { form.append(fileAt: URL(fileURLWithPath: path), name: name) }
            body = try form.makeBody()
            if !headers.contains("Content-Type") { try headers.set(name: "Content-Type", value: form.contentType) }
        } else if !fields.isEmpty {
            let json = "{" + fields.map { Self.jsonString($0.0) + ": " + $0.1 }.joined(separator: ", ") + "}"
            body = .bytes(Data(json.utf8))
            if !headers.contains("Content-Type") { try headers.set(name: "Content-Type", value: "application/json") }
            if !headers.contains("Accept") { try headers.set(name: "Accept", value: "application/json, */*;q=0.5") }
        }
        let method = invocation.method ?? (body.length == 0 ? .get : .post)
        return HTTPRequest(method: method, url: target, headers: headers, body: body)
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: Output

    static func write(_ text: String) {
        writeData(Data(text.utf8))
    }

    static func writeData(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    /// One line on standard error, prefixed with the program's name.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("sluice: \(message)\n".utf8))
    }
}

private extension HeadersMiddleware {
    /// `X-Key-Id: KEYID` for `--sign`.
    init(keyID: String) {
        self.init(configuration: .init(fields: ["X-Key-Id": keyID]))
    }
}
