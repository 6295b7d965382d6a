import Foundation
import Sluice

/// What a `sluice` command line asks for, parsed and checked: the method, URL and items, and
/// every flag. Parsing never touches the network or the environment.
///
/// ```swift
/// let invocation = try Invocation.parse(["-vv", "--retry", "3", "POST", "api.example.com/notes", "title=Hi", "draft:=true"])
/// invocation.method        // .post
/// invocation.url           // "http://api.example.com/notes"
/// invocation.verbosity     // 2
/// ```
public struct Invocation: Sendable {
    /// The method given before the URL, if any.
    public var method: HTTPMethod?
    /// The URL, as given (a scheme is added when it has none).
    public var url = ""
    /// The request items: headers, query parameters, fields, files.
    public var items: [RequestItem] = []
    /// 0 to 3: `-v` logs a line per call, `-vv` adds headers, `-vvv` bodies (to standard error).
    public var verbosity = 0
    /// `--cache` alone: the default folder (`""`); `--cache=PATH`: that folder.
    public var cache: String?
    /// `--cache-policy POLICY`: how the cache is used.
    public var cachePolicy: String?
    /// `--offline-fallback`: answer from the cache when the network fails.
    public var offlineFallback = false
    /// `--retry N`: retry up to N times.
    public var retry: Int?
    /// `--gzip`: compress request bodies of 1 KiB or more and ask for compressed answers.
    public var gzip = false
    /// `--sign hmac:KEYID`: sign with HMAC-SHA256.
    public var sign: String?
    /// `--aws-sigv4 REGION:SERVICE`: sign with AWS Signature V4 (keys from the environment).
    public var awsSigV4: (region: String, service: String)?
    /// `--oauth1`: sign with OAuth 1.0a (keys from the environment).
    public var oauth1 = false
    /// `--har FILE`: record the exchange as a HAR file.
    public var har: String?
    /// `-d`, `--download FILE`: save the body to a file, atomically when it is whole.
    public var download: String?
    /// `-c`: continue a download from the bytes an earlier run left.
    public var resume = false
    /// `--timeout SECONDS`: the whole call's limit.
    public var timeout: Double?
    /// `--http2`: HTTP/2 (prior knowledge on http://, ALPN on https://).
    public var http2 = false
    /// `--cert FILE`: a client certificate (PEM).
    public var certificate: String?
    /// `--key FILE`: the client certificate's key.
    public var key: String?
    /// `--pin sha256//BASE64`: accept only a server key with this pin.
    public var pin: String?
    /// `--insecure`: skip TLS verification, with a warning.
    public var insecure = false
    /// `--check-status`: exit with 3, 4 or 5 for a 3xx, 4xx or 5xx answer.
    public var checkStatus = false
    /// httpie's `--print`: `H` request headers, `B` request body, `h` response headers, `b` body.
    public var print: String?
    /// `--follow`, `-F` or `-L`: follow redirects (they are returned as they are otherwise).
    public var follow = false
    /// `--max-redirects N`: with `--follow`, at most N redirects (30 by default).
    public var maxRedirects: Int?
    /// `--help`.
    public var help = false
    /// `--version`.
    public var version = false

    /// No flags: a `GET` (or a `POST` with data items) of the URL given.
    public init() {}

    /// Reads `arguments` (without the program name).
    ///
    /// - Throws: ``UsageError`` naming the flag, value or item that is wrong.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
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
            if argument.hasPrefix("-") && !argument.hasPrefix("--") {
                // Short flags, which may be combined (-vv, -Lc); one that takes a value takes the
                // rest of the argument or the next one (-pHhb, -p Hhb).
                var letters = argument.dropFirst()
                while let letter = letters.popFirst() {
                    switch letter {
                    case "v": invocation.verbosity += 1
                    case "c": invocation.resume = true
                    case "h": invocation.help = true
                    case "F", "L": invocation.follow = true
                    case "p", "d":
                        let text = try value("-\(letter)", letters.isEmpty ? nil : String(letters))
                        letters = ""
                        if letter == "p" { invocation.print = try Self.printLetters(text) } else { invocation.download = text }
                    default: throw UsageError("unknown option -\(letter); see sluice --help")
                    }
                }
                guard invocation.verbosity <= 3 else { throw UsageError("-v can be given at most three times (-vvv)") }
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let flag = parts[0]
            let inline = parts.count > 1 ? parts[1] : nil
            switch flag {
            case "--help": invocation.help = true
            case "--version": invocation.version = true
            case "--verbose": invocation.verbosity = min(3, invocation.verbosity + 1)
            case "--cache": invocation.cache = inline ?? ""
            case "--cache-policy":
                let name = try value(flag, inline)
                guard Self.cachePolicies.contains(name) else {
                    throw UsageError("--cache-policy must be one of \(Self.cachePolicies.joined(separator: ", ")), not \(String(reflecting: name))")
                }
                invocation.cachePolicy = name
            case "--offline-fallback": invocation.offlineFallback = true
            case "--retry":
                let text = try value(flag, inline)
                guard let count = Int(text), (0...10).contains(count) else {
                    throw UsageError("--retry expects a whole number from 0 to 10, not \(String(reflecting: text))")
                }
                invocation.retry = count
            case "--gzip": invocation.gzip = true
            case "--sign":
                let text = try value(flag, inline)
                guard text.hasPrefix("hmac:"), text.count > 5 else {
                    throw UsageError("--sign expects hmac:KEYID, not \(String(reflecting: text))")
                }
                invocation.sign = String(text.dropFirst(5))
            case "--aws-sigv4":
                let text = try value(flag, inline)
                let pieces = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else {
                    throw UsageError("--aws-sigv4 expects REGION:SERVICE (like us-east-1:s3), not \(String(reflecting: text))")
                }
                invocation.awsSigV4 = (pieces[0], pieces[1])
            case "--oauth1": invocation.oauth1 = true
            case "--har": invocation.har = try value(flag, inline)
            case "--download": invocation.download = try value(flag, inline)
            case "--continue": invocation.resume = true
            case "--timeout":
                let text = try value(flag, inline)
                guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw UsageError("--timeout expects a number of seconds above 0, not \(String(reflecting: text))")
                }
                invocation.timeout = seconds
            case "--http2": invocation.http2 = true
            case "--cert": invocation.certificate = try value(flag, inline)
            case "--key": invocation.key = try value(flag, inline)
            case "--pin":
                let text = try value(flag, inline)
                guard text.hasPrefix("sha256//") else {
                    throw UsageError("--pin expects sha256//BASE64 (curl's --pinnedpubkey form), not \(String(reflecting: text))")
                }
                invocation.pin = text
            case "--insecure": invocation.insecure = true
            case "--check-status": invocation.checkStatus = true
            case "--print": invocation.print = try Self.printLetters(try value(flag, inline))
            case "--follow": invocation.follow = true
            case "--max-redirects":
                let text = try value(flag, inline)
                guard let count = Int(text), (0...100).contains(count) else {
                    throw UsageError("--max-redirects expects a whole number from 0 to 100, not \(String(reflecting: text))")
                }
                invocation.maxRedirects = count
            default:
                throw UsageError("unknown option \(flag); see sluice --help")
            }
        }

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
        if invocation.maxRedirects != nil && !invocation.follow {
            throw UsageError("--max-redirects limits --follow (-F, -L): give that too, or redirects are not followed at all")
        }
        if invocation.resume && invocation.download == nil {
            throw UsageError("-c continues a download: give --download FILE too")
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

    /// `example.com/x` → `http://example.com/x`; `:8080/x` → `http://localhost:8080/x`; other
    /// schemes than http and https are refused.
    static func normalizedURL(_ text: String) throws(UsageError) -> String {
        var candidate = text
        if candidate.hasPrefix(":") { candidate = "localhost" + candidate }
        if !candidate.contains("://") { candidate = "http://" + candidate }
        guard let url = URL(string: candidate), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw UsageError("\(String(reflecting: text)) is not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw UsageError("\(String(reflecting: text)) is not an http or https URL")
        }
        return candidate
    }
}
