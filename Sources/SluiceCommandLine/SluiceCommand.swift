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

/// The `sluice` program: parses its arguments, assembles a client from the middleware the flags
/// ask for, sends the request, and prints the answer. Everything but the process's exit lives
/// here, so the executable's `main.swift` is one line.
///
/// ```swift
/// import Foundation
/// import SluiceCommandLine
///
/// let code = await SluiceCommand(arguments: ["-v", "httpbin.org/get"]).run()
/// exit(code)
/// ```
package struct SluiceCommand: Sendable {
    /// The command-line arguments, without the program's name.
    package let arguments: [String]
    /// The environment it reads secrets and settings from.
    package let environment: [String: String]

    /// A run of `sluice` with these arguments and environment.
    package init(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.arguments = arguments
        self.environment = environment
    }

    /// Runs the command; returns the exit code (see ``ExitCode``).
    package func run() async -> Int32 {
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
            guard let seconds = invocation.timeout else { return try await perform(invocation).rawValue }
            // --timeout is the whole call's limit: redirects, retries and a download's resumes.
            let shown = seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)
            let timedOut = { SluiceError(.timedOut, "--timeout \(shown) s passed before the call ended") }
            let deadline = ContinuousClock.now + .clampedSeconds(seconds)
            do {
                return try await Deadline.race(deadline, timedOut: timedOut) { try await perform(invocation) }.rawValue
            } catch let error as SluiceError where error.code == .timedOut && ContinuousClock.now >= deadline {
                // The transfer's own limit is the same --timeout, counted from a later start: when
                // it fires first, at the same moment, the message still names the flag.
                throw timedOut()
            }
        } catch let error as UsageError {
            Self.error(error.message)
            return ExitCode.usage.rawValue
        } catch let error as SluiceError where error.code == .cancelled {
            Self.error("interrupted")
            return ExitCode.interrupted.rawValue
        } catch let error as SluiceError {
            Self.error(error.message)
            return ExitCode(for: error).rawValue
        } catch is CancellationError {
            Self.error("interrupted")
            return ExitCode.interrupted.rawValue
        } catch {
            Self.error("\(error)")
            return ExitCode.failure.rawValue
        }
    }

    // MARK: The call

    private func perform(_ typed: Invocation) async throws -> ExitCode {
        guard let url = URL(string: typed.url) else { throw UsageError("\(String(reflecting: typed.url)) is not a URL") }
        // -a USER: the password is asked for on the terminal, and a session keeps it as if typed.
        var given = typed
        if let auth = given.auth, given.authType != .bearer, !auth.contains(":") {
            given.auth = auth + ":" + (try Self.askPassword(user: auth, host: url.host ?? ""))
        }
        var invocation = given
        let sessionPath = given.session.map { Session.path(name: $0, url: url, environment: environment) }
        var session = try sessionPath.map { (path) throws(UsageError) in try Session.load(from: path) }
        if let session { invocation = session.applied(to: given) }
        let output = OutputOptions(invocation, typed: try Self.typedSecrets(invocation))
        var configuration = try transportConfiguration(invocation, url: url)
        // What --print H and -vv show is the head curl wrote, recorded only when it is shown.
        configuration.recordsRequestHeads = output.requestHeaders || invocation.verbosity >= 2
        if session != nil, configuration.cookieJar == nil { configuration.cookieJar = .memory }
        let offline = invocation.offline ? OfflineTransport() : nil
        let curl = offline == nil ? CurlTransport(configuration: configuration) : nil
        let transport: any HTTPTransport = curl.map { $0 as any HTTPTransport } ?? offline ?? OfflineTransport()
        if let curl, let session { try curl.addCookies(session.cookies) }
        /// After an exchange: the session keeps this run's headers, credentials and cookies.
        func saveSession() throws {
            guard let sessionPath, var kept = session else { return }
            kept.record(given, cookies: curl?.cookies ?? kept.cookies)
            try kept.save(to: sessionPath)
            session = kept
        }
        var builder = Client.Builder(transport: transport)
        builder.environment = environment
        let recorder = invocation.har.map { _ in HARRecorder() }
        try addMiddleware(invocation, to: &builder, recorder: recorder)
        let client = builder.build()

        var request = try makeRequest(invocation, url: url)
        if invocation.offlineFallback { request.cachePolicy = .offlineFallback }
        if let policy = invocation.cachePolicy { request.cachePolicy = Self.cachePolicy(named: policy) }

        defer {
            if let recorder, let path = invocation.har {
                do {
                    try recorder.write(to: URL(fileURLWithPath: path))
                } catch {
                    Self.error("cannot write the HAR file \(path): \(error)")
                }
            }
        }

        if let offline {
            do {
                _ = try await client.send(request)
            } catch {
                guard let sent = offline.request else { throw error }
                Self.write(output.describe(request: sent, sentHead: nil, userAgent: configuration.userAgent))
                return .success
            }
            Self.error("nothing would be sent: the cache answers this request")
            return .success
        }

        if let download = invocation.download {
            let path = invocation.output ?? (download.isEmpty ? Self.downloadName(for: url, resuming: invocation.resume) : download)
            let destination = URL(fileURLWithPath: path)
            if !invocation.resume {
                for suffix in [".sluice-partial", ".sluice-partial.json", ".sluice-partial.next"] { unlink(path + suffix) }
            }
            // --retry also bounds the automatic resumes after a broken connection or a timeout.
            let result = try await client.download(request, to: destination, configuration: .init(resumeAttempts: invocation.retry ?? 3))
            try saveSession()
            if output.responseHeaders { Self.write(output.head(of: result.response)) }
            let resumed = result.resumedFrom > 0 ? " (continued from byte \(result.resumedFrom))" : ""
            Self.error("saved \(result.bytes) bytes to \(path)\(resumed)")
            return Self.exitCode(result.response, invocation)
        }

        let response = try await invocation.stream ? client.stream(request) : client.send(request)
        try saveSession()
        if output.requestHeaders || output.requestBody, let sent = response.request {
            Self.write(output.describe(request: sent, sentHead: response.metrics?.requestHeadParts, userAgent: configuration.userAgent))
        }
        if output.responseHeaders { Self.write(output.head(of: response)) }
        if let path = invocation.output {
            try await Self.save(response, to: path)
        } else if output.responseBody, let stream = response.bodyStream {
            // --stream: each chunk as it comes, as its bytes (a terminal gets text escaped).
            for try await chunk in stream {
                let shown = output.isTerminal ? String(decoding: chunk, as: UTF8.self).escapingControlCharacters(keepingLineBreaks: true) : nil
                try Self.writeBody(shown.map { Data($0.utf8) } ?? chunk)
            }
        } else if output.responseBody {
            try Self.writeBody(output.body(of: response))
        }
        return Self.exitCode(response, invocation)
    }

    /// The exit code for `response`; with `--check-status`, a 3xx, 4xx or 5xx is also said on
    /// standard error, as httpie does.
    static func exitCode(_ response: HTTPResponse, _ invocation: Invocation) -> ExitCode {
        let code = ExitCode(status: response.status.code, checkStatus: invocation.checkStatus)
        if invocation.checkStatus, code != .success {
            error("warning: HTTP \(response.status)")
        }
        return code
    }
}
