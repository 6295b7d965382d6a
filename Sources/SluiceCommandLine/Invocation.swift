import Foundation
import Sluice

/// What a `sluice` command line asks for, parsed and checked: the method, URL and items, and
/// every flag. Parsing never touches the network or the environment.
///
/// ```swift
/// import SluiceCommandLine
///
/// let invocation = try Invocation.parse(["-vv", "--retry", "3", "POST", "api.example.com/notes", "title=Hi", "draft:=true"])
/// invocation.method        // .post
/// invocation.url           // "http://api.example.com/notes"
/// invocation.verbosity     // 2
/// ```
package struct Invocation: Sendable {
    /// The method given before the URL, if any.
    package var method: HTTPMethod?
    /// The URL, as given (a scheme is added when it has none).
    package var url = ""
    /// The request items: headers, query parameters, fields, files.
    package var items: [RequestItem] = []
    /// 0 to 3: `-v` prints the request and the response, heads and bodies, as httpie does; `-vv`
    /// adds the middleware log (a line per call and its fields, on standard error), `-vvv` its
    /// bodies too.
    package var verbosity = 0
    /// `--cache` alone: the default folder (`""`); `--cache=PATH`: that folder.
    package var cache: String?
    /// `--cache-policy POLICY`: how the cache is used.
    package var cachePolicy: String?
    /// `--offline-fallback`: answer from the cache when the network fails.
    package var offlineFallback = false
    /// `--retry N`: retry up to N times.
    package var retry: Int?
    /// `--gzip`: compress request bodies of 1 KiB or more and ask for compressed answers.
    package var gzip = false
    /// `--sign hmac:KEYID`: sign with HMAC-SHA256.
    package var sign: String?
    /// `--aws-sigv4 REGION:SERVICE`: sign with AWS Signature V4 (keys from the environment).
    package var awsSigV4: (region: String, service: String)?
    /// `--oauth1`: sign with OAuth 1.0a (keys from the environment).
    package var oauth1 = false
    /// `--har FILE`: record the exchange as a HAR file.
    package var har: String?
    /// `-d`, `--download`: save the body to a file, atomically when it is whole: the `-o` file,
    /// `--download=FILE`'s, or (`""`) one named after the URL.
    package var download: String?
    /// `-o`, `--output FILE`: the body goes to this file instead of standard output (with `-d`,
    /// the download's file).
    package var output: String?
    /// `-S`, `--stream`: print the body as it arrives.
    package var stream = false
    /// `--pretty all|colors|format|none`: colours and JSON layout on a terminal (`all` there,
    /// `none` when piped, unless given).
    package var pretty: Pretty?
    /// `--verify yes|no|CA_FILE`: verify TLS (`yes`), skip it with a warning (`no`), or trust the
    /// certificates in a file.
    package var verify: String?
    /// `--proxy PROTOCOL:URL`, repeatable: the proxy for URLs of that scheme.
    package var proxies: [String: String] = [:]
    /// `--keep-encoding`: print a compressed answer's bytes as they came (gzip and deflate are
    /// decoded otherwise).
    package var keepEncoding = false
    /// `--redact`: hide credentials and secret query values in `--print` and `--offline` too
    /// (only what middleware added is hidden otherwise).
    package var redact = false
    /// Whether `--json` or `-j` was given (it then sets `Accept` on any method).
    package var jsonGiven = false
    /// `-c`: continue a download from the bytes an earlier run left.
    package var resume = false
    /// `--timeout SECONDS`: the whole call's limit.
    package var timeout: Double?
    /// `--http2`: HTTP/2 (prior knowledge on http://, ALPN on https://).
    package var http2 = false
    /// `--cert FILE`: a client certificate (PEM).
    package var certificate: String?
    /// `--key FILE`: the client certificate's key.
    package var key: String?
    /// `--pin sha256//BASE64`: accept only a server key with this pin.
    package var pin: String?
    /// `--insecure`: skip TLS verification, with a warning.
    package var insecure = false
    /// `--check-status`: exit with 3, 4 or 5 for a 3xx, 4xx or 5xx answer.
    package var checkStatus = false
    /// httpie's `--print`: `H` request headers, `B` request body, `h` response headers, `b` body.
    package var print: String?
    /// How data items make the body: JSON (`--json`, the default) or a form (`--form`).
    package var bodyKind = BodyKind.json
    /// `--ignore-stdin`: never read a body from standard input.
    package var ignoreStdin = false
    /// `--offline`: print the request that would be sent, and send nothing.
    package var offline = false
    /// `--auth USER:PASSWORD` (or a token with `--auth-type bearer`).
    package var auth: String?
    /// `--auth-type`: how `--auth` is sent (basic when not given).
    package var authType: AuthType?
    /// `--session NAME`: cookies and auth headers kept between runs under this name.
    package var session: String?
    /// `--follow`, `-F` or `-L`: follow redirects (they are returned as they are otherwise).
    package var follow = false
    /// `--max-redirects N`: with `--follow`, at most N redirects (30 by default).
    package var maxRedirects: Int?
    /// `--help`.
    package var help = false
    /// `--version`.
    package var version = false

    /// httpie's `--pretty`.
    package enum Pretty: String, Sendable, Hashable, CaseIterable {
        /// Colours and JSON layout.
        case all
        /// Colours only.
        case colors
        /// JSON layout only.
        case format
        /// The bytes as they came.
        case none
    }

    /// How data items become the body.
    package enum BodyKind: Sendable, Hashable {
        /// A JSON object (`--json`, the default).
        case json
        /// `application/x-www-form-urlencoded`, or `multipart/form-data` with a file (`--form`).
        case form
    }

    /// How `--auth` is sent.
    package enum AuthType: String, Sendable, Hashable, CaseIterable {
        /// `Authorization: Basic …` from `USER:PASSWORD`.
        case basic
        /// `Authorization: Bearer TOKEN`.
        case bearer
        /// HTTP Digest, answered by curl to the server's challenge.
        case digest
    }

    /// No flags: a `GET` (or a `POST` with data items) of the URL given.
    package init() {}

    /// Reads `arguments` (without the program name).
    ///
    /// - Throws: ``UsageError`` naming the flag, value or item that is wrong.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var invocation = Invocation()
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false

        func value(_ flag: String, _ inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value; see sluice --help") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if !argument.hasPrefix("--") {
                // One-letter flags, which may be combined (-vv, -Lc); one that takes a value takes
                // the rest of the argument or the next one (-pHhb, -p Hhb).
                var letters = argument.dropFirst()
                while let letter = letters.popFirst() {
                    guard let flag = flagsByName["-\(letter)"] else { throw UsageError("unknown option -\(letter); see sluice --help") }
                    if flag.value == nil || flag.valueIsOptional {
                        // A one-letter flag whose value is optional takes none (-d; --download=FILE names one).
                        try flag.apply(&invocation, nil)
                    } else {
                        try flag.apply(&invocation, try value("-\(letter)", letters.isEmpty ? nil : String(letters)))
                        letters = ""
                    }
                }
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts[0]
            let inline = parts.count > 1 ? parts[1] : nil
            guard let flag = flagsByName[name] else { throw UsageError("unknown option \(name); see sluice --help") }
            if flag.value == nil {
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                try flag.apply(&invocation, nil)
            } else {
                try flag.apply(&invocation, flag.valueIsOptional ? inline : try value(name, inline))
            }
        }

        guard invocation.verbosity <= 3 else { throw UsageError("-v can be given at most three times (-vvv)") }
        if invocation.help || invocation.version { return invocation }
        guard !positionals.isEmpty else { throw UsageError("no URL given; usage: sluice [METHOD] URL [ITEM…]; see sluice --help") }
        var rest = positionals[...]
        if positionals.count >= 2, let method = Self.method(positionals[0]) {
            invocation.method = method
            rest = rest.dropFirst()
        }
        invocation.url = try Self.normalizedURL(rest.removeFirst())
        invocation.items = try rest.map { (text) throws(UsageError) in try RequestItem(parsing: text) }
        if invocation.key != nil && invocation.certificate == nil {
            throw UsageError("--key needs --cert: the key belongs to a client certificate")
        }
        if invocation.authType != nil && invocation.auth == nil {
            throw UsageError("--auth-type says how to send --auth: give --auth too")
        }
        if let session = invocation.session,
            session.isEmpty || session.hasPrefix(".") || !session.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
        {
            throw UsageError("--session takes a name of letters, digits, - _ and . (not starting with .), not \(String(reflecting: session))")
        }
        if invocation.maxRedirects != nil && !invocation.follow {
            throw UsageError("--max-redirects limits --follow (-F, -L): give that too, or redirects are not followed at all")
        }
        if invocation.resume && invocation.download == nil {
            throw UsageError("-c continues a download: give --download (-d) too")
        }
        if let download = invocation.download, !download.isEmpty, let output = invocation.output, output != download {
            throw UsageError("--download=\(download) and --output \(output) name two files: give one")
        }
        if invocation.stream && invocation.download != nil {
            throw UsageError("--stream prints the body as it arrives; a --download saves it: give one")
        }
        return invocation
    }

    /// `--print`'s value: letters from `H`, `B`, `h` and `b`.
    static func printLetters(_ text: String) throws(UsageError) -> String {
        guard !text.isEmpty, text.allSatisfy({ "HBhb".contains($0) }) else {
            throw UsageError("--print takes letters from H, B, h and b, not \(String(reflecting: text))")
        }
        return text
    }

    static let cachePolicies = ["use-protocol", "reload", "return-cache-else-load", "return-cache-dont-load", "offline-fallback"]

    static func method(_ text: String) -> HTTPMethod? {
        let known = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]
        guard known.contains(text) else { return nil }
        return HTTPMethod(rawValue: text)
    }

    /// `example.com/x` → `http://example.com/x`; `:8080/x` → `http://localhost:8080/x`, `:/x` →
    /// `http://localhost/x` (httpie's shorthands); other schemes than http and https are refused.
    /// Only a scheme at the start counts: `example.com/go?to=http://elsewhere` gets `http://`.
    static func normalizedURL(_ text: String) throws(UsageError) -> String {
        var candidate = text
        if candidate.hasPrefix(":/") {
            candidate = "localhost" + candidate.dropFirst()
        } else if candidate.hasPrefix(":") {
            candidate = "localhost" + candidate
        }
        if !hasScheme(candidate) { candidate = "http://" + candidate }
        guard let url = URL(string: candidate), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw UsageError("\(String(reflecting: text)) is not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw UsageError("\(String(reflecting: text)) is not an http or https URL")
        }
        return candidate
    }

    /// Whether `text` starts with `scheme://` (RFC 3986's scheme characters).
    static func hasScheme(_ text: String) -> Bool {
        // The scheme's syntax is `Client.join`'s check; then its colon must start `://`.
        guard URLJoin.startsWithScheme(text), let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        return text.utf8[colon...].starts(with: "://".utf8)
    }
}
