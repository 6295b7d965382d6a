/// Every flag `sluice` accepts, in the order `--help` lists them.
extension Invocation {
    /// The flags, read by the parser and by `--help` alike.
    ///
    /// ```swift
    /// import SluiceCommandLine
    ///
    /// Invocation.flags.flatMap(\.names).contains("--follow")   // true
    /// ```
    package static let flags: [CommandLineFlag] = [
        // What is printed
        CommandLineFlag(
            ["-v", "--verbose"], "print the request and the response, heads and bodies (--print HBhb);",
            "-vv adds the middleware log on standard error, -vvv its bodies too"
        ) { invocation, _ in invocation.verbosity += 1 },
        CommandLineFlag(
            ["-p", "--print"], value: "WHAT", "what to print: H request headers, B request body, h response",
            "headers, b response body (default: hb on a terminal, b otherwise)"
        ) { invocation, text throws(UsageError) in invocation.print = try printLetters(text ?? "") },
        CommandLineFlag(["-b", "--body"], "print the response body only (--print b)") { invocation, _ in invocation.print = "b" },
        CommandLineFlag(["-S", "--stream"], "print the body as it arrives, chunk by chunk") { invocation, _ in invocation.stream = true },
        CommandLineFlag(["--pretty"], value: "STYLE", "all, colors, format or none (default: all on a terminal, none piped)") {
            invocation, text throws(UsageError) in
            guard let style = text.flatMap(Pretty.init(rawValue:)) else {
                throw UsageError("--pretty must be all, colors, format or none, not \(String(reflecting: text ?? ""))")
            }
            invocation.pretty = style
        },
        CommandLineFlag(["--keep-encoding"], "print a gzip or deflate answer's bytes as they came (decoded otherwise)") {
            invocation, _ in invocation.keepEncoding = true
        },
        CommandLineFlag(["--offline"], "print the request that would be sent (--print HB) and send nothing") { invocation, _ in
            invocation.offline = true
        },
        CommandLineFlag(
            ["--redact"], "hide credentials and secret query values in --print and --offline too",
            "(else only what middleware added is hidden; what you typed is shown)"
        ) { invocation, _ in invocation.redact = true },
        CommandLineFlag(["--har"], value: "FILE", "record the exchange as a HAR 1.2 file") { invocation, file in invocation.har = file },
        CommandLineFlag(["--check-status"], "exit 3, 4 or 5 for a 3xx, 4xx or 5xx answer, with a warning on stderr") { invocation, _ in
            invocation.checkStatus = true
        },
        // The body
        CommandLineFlag(["-j", "--json"], "data items as a JSON object (the default); asks for JSON on any method") { invocation, _ in
            invocation.bodyKind = .json
            invocation.jsonGiven = true
        },
        CommandLineFlag(
            ["-f", "--form"], "data items as a form: url-encoded, or multipart/form-data when a",
            "field@file item is given"
        ) { invocation, _ in invocation.bodyKind = .form },
        CommandLineFlag(["-I", "--ignore-stdin"], "never read a body from standard input") { invocation, _ in invocation.ignoreStdin = true },
        // Credentials
        CommandLineFlag(
            ["-a", "--auth"], value: "USER[:PASSWORD]", "credentials (a token with --auth-type bearer); kept out of logs",
            "and HAR files; without a password, asked for on the terminal"
        ) { invocation, text in invocation.auth = text },
        CommandLineFlag(["-A", "--auth-type"], value: "TYPE", "basic (the default), bearer or digest") { invocation, text throws(UsageError) in
            guard let type = text.flatMap(AuthType.init(rawValue:)) else {
                throw UsageError("--auth-type must be basic, bearer or digest, not \(String(reflecting: text ?? ""))")
            }
            invocation.authType = type
        },
        CommandLineFlag(
            ["--session"], value: "NAME", "keep cookies and auth headers between runs, in a 0600 file under",
            "~/.config/sluice/sessions/HOST/NAME.json"
        ) { invocation, name in invocation.session = name },
        // Redirects
        CommandLineFlag(["-F", "-L", "--follow"], "follow redirects (otherwise a 3xx is printed as it is)") { invocation, _ in
            invocation.follow = true
        },
        CommandLineFlag(["--max-redirects"], value: "N", "with --follow, at most N redirects (default 30), then exit 47") {
            invocation, text throws(UsageError) in
            guard let count = text.flatMap({ Int($0) }), (0...100).contains(count) else {
                throw UsageError("--max-redirects expects a whole number from 0 to 100, not \(String(reflecting: text ?? ""))")
            }
            invocation.maxRedirects = count
        },
        // Middleware
        CommandLineFlag(["--cache"], value: "DIR", optional: true, "cache responses in SQLite (default: $XDG_CACHE_HOME/sluice)") {
            invocation, folder in invocation.cache = folder ?? ""
        },
        CommandLineFlag(
            ["--cache-policy"], value: "POLICY", "use-protocol, reload, return-cache-else-load, return-cache-dont-load,",
            "offline-fallback"
        ) { invocation, name throws(UsageError) in
            guard let name, cachePolicies.contains(name) else {
                throw UsageError(
                    "--cache-policy must be one of \(cachePolicies.joined(separator: ", ")), not \(String(reflecting: name ?? ""))")
            }
            invocation.cachePolicy = name
        },
        CommandLineFlag(["--offline-fallback"], "answer from the cache when the network fails") { invocation, _ in
            invocation.offlineFallback = true
        },
        CommandLineFlag(
            ["--retry"], value: "N", "retry failed calls up to N times (0–10), with backoff and Retry-After;",
            "with --download, resume a broken transfer up to N times (default 3)"
        ) { invocation, text throws(UsageError) in
            guard let count = text.flatMap({ Int($0) }), (0...10).contains(count) else {
                throw UsageError("--retry expects a whole number from 0 to 10, not \(String(reflecting: text ?? ""))")
            }
            invocation.retry = count
        },
        CommandLineFlag(["--gzip"], "gzip request bodies (1 KiB or more) and ask for gzip answers") { invocation, _ in invocation.gzip = true },
        CommandLineFlag(["--sign"], value: "hmac:KEYID", "sign with HMAC-SHA256 (secret in SLUICE_HMAC_SECRET; X-Key-Id: KEYID)") {
            invocation, text throws(UsageError) in
            guard let text, text.hasPrefix("hmac:"), text.count > 5 else {
                throw UsageError("--sign expects hmac:KEYID, not \(String(reflecting: text ?? ""))")
            }
            invocation.sign = String(text.dropFirst(5))
        },
        CommandLineFlag(
            ["--aws-sigv4"], value: "REGION:SERVICE", "sign with AWS Signature V4 (AWS_ACCESS_KEY_ID,",
            "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)"
        ) { invocation, text throws(UsageError) in
            let pieces = (text ?? "").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else {
                throw UsageError("--aws-sigv4 expects REGION:SERVICE (like us-east-1:s3), not \(String(reflecting: text ?? ""))")
            }
            invocation.awsSigV4 = (pieces[0], pieces[1])
        },
        CommandLineFlag(
            ["--oauth1"], "sign with OAuth 1.0a (SLUICE_OAUTH1_CONSUMER_KEY,", "SLUICE_OAUTH1_CONSUMER_SECRET, SLUICE_OAUTH1_TOKEN,",
            "SLUICE_OAUTH1_TOKEN_SECRET)"
        ) { invocation, _ in invocation.oauth1 = true },
        // Downloads
        CommandLineFlag(
            ["-d", "--download"], value: "FILE", optional: true, "save the body to a file (atomically, when it is whole): -o FILE,",
            "--download=FILE, or one named after the URL (never over an existing one)"
        ) { invocation, file in invocation.download = file ?? "" },
        CommandLineFlag(["-o", "--output"], value: "FILE", "write the body to FILE instead of standard output") { invocation, file in
            invocation.output = file
        },
        CommandLineFlag(["-c", "--continue"], "continue a --download that an earlier run left unfinished") { invocation, _ in
            invocation.resume = true
        },
        // The transport
        CommandLineFlag(
            ["--timeout"], value: "SECONDS", "give up after this long: the whole call, redirects, retries and a",
            "download's resumes included (exit 28)"
        ) { invocation, text throws(UsageError) in
            guard let seconds = text.flatMap({ Double($0) }), seconds > 0, seconds.isFinite else {
                throw UsageError("--timeout expects a number of seconds above 0, not \(String(reflecting: text ?? ""))")
            }
            invocation.timeout = seconds
        },
        CommandLineFlag(["--http2"], "HTTP/2 (prior knowledge on http://, ALPN on https://)") { invocation, _ in invocation.http2 = true },
        CommandLineFlag(["--cert"], value: "FILE", "a client certificate (PEM)") { invocation, file in invocation.certificate = file },
        CommandLineFlag(["--key"], value: "FILE", "its private key, when not in --cert") { invocation, file in invocation.key = file },
        CommandLineFlag(["--pin"], value: "sha256//BASE64", "accept only a server key with this SHA-256 pin") {
            invocation, text throws(UsageError) in
            guard let text, text.hasPrefix("sha256//") else {
                throw UsageError("--pin expects sha256//BASE64 (curl's --pinnedpubkey form), not \(String(reflecting: text ?? ""))")
            }
            invocation.pin = text
        },
        CommandLineFlag(["--insecure"], "do not verify TLS certificates or host names (warns)") { invocation, _ in invocation.insecure = true },
        CommandLineFlag(["--verify"], value: "yes|no|FILE", "verify TLS (yes), do not (no, as --insecure), or trust the CAs in FILE") {
            invocation, text throws(UsageError) in
            guard let text, !text.isEmpty else { throw UsageError("--verify expects yes, no or a CA file") }
            switch text.lowercased() {
            case "yes", "true": invocation.verify = nil
            case "no", "false": invocation.insecure = true
            default: invocation.verify = text
            }
        },
        CommandLineFlag(["--proxy"], value: "SCHEME:URL", "the proxy for URLs of that scheme: --proxy http:http://proxy:3128") {
            invocation, text throws(UsageError) in
            guard let text, let colon = text.firstIndex(of: ":"), colon != text.startIndex, text[text.index(after: colon)...].contains("://")
            else {
                throw UsageError("--proxy expects SCHEME:URL (like http:http://proxy:3128), not \(String(reflecting: text ?? ""))")
            }
            invocation.proxies[text[..<colon].lowercased()] = String(text[text.index(after: colon)...])
        },
        // About sluice
        CommandLineFlag(["-h", "--help"], "this text") { invocation, _ in invocation.help = true },
        CommandLineFlag(["--version"], "the versions of Sluice and libcurl") { invocation, _ in invocation.version = true },
    ]

    /// Each flag under each of its names.
    static let flagsByName: [String: CommandLineFlag] = Dictionary(
        flags.flatMap { flag in flag.names.map { ($0, flag) } }, uniquingKeysWith: { first, _ in first })
}
