/// What `sluice --help` prints: the usage, every item and flag, the environment variables, and
/// the exit codes.
///
/// ```swift
/// print(HelpText.text)
/// ```
public enum HelpText {
    /// The text `sluice --help` prints.
    public static var text: String {
        let codes = ExitCode.allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0))\($0.meaning)" }
        return """
            sluice: an HTTP client built from Sluice's middleware, in the spirit of httpie and curl.

            Usage: sluice [METHOD] URL [ITEM…] [OPTIONS]

              METHOD   GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS or TRACE; GET without a body,
                       POST with one.
              URL      http:// or https://; "example.com/x" means http://example.com/x and
                       ":8080/x" means http://localhost:8080/x.

            Items:
              Header:Value     a request header ("Header:" sends it empty)
              name==value      a query parameter
              field=value      a JSON string field (or a form field with a file)
              field:=json      a raw JSON field: field:=36, tags:='["a","b"]'
              field@path       a file: the body becomes multipart/form-data
              A backslash keeps a separator in a name: a\\:b==1.

            Options:
              -v, -vv, -vvv             log each call to standard error: a line, then headers, then bodies
                                        (secrets redacted)
              --har FILE                record the exchange as a HAR 1.2 file
              --cache[=DIR]             cache responses in SQLite (default: $XDG_CACHE_HOME/sluice)
              --cache-policy POLICY     use-protocol, reload, return-cache-else-load, return-cache-dont-load,
                                        offline-fallback
              --offline-fallback        answer from the cache when the network fails
              --retry N                 retry failed calls up to N times (0–10), with backoff and Retry-After;
                                        with --download, resume a broken transfer up to N times (default 3)
              --gzip                    gzip request bodies (1 KiB or more) and ask for gzip answers
              --sign hmac:KEYID         sign with HMAC-SHA256 (secret in SLUICE_HMAC_SECRET; X-Key-Id: KEYID)
              --aws-sigv4 REGION:SERVICE  sign with AWS Signature V4 (AWS_ACCESS_KEY_ID,
                                        AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)
              --oauth1                  sign with OAuth 1.0a (SLUICE_OAUTH1_CONSUMER_KEY,
                                        SLUICE_OAUTH1_CONSUMER_SECRET, SLUICE_OAUTH1_TOKEN,
                                        SLUICE_OAUTH1_TOKEN_SECRET)
              -d, --download FILE       save the body to FILE (atomically, when it is whole)
              -c, --continue            continue a --download that an earlier run left unfinished
              -F, -L, --follow          follow redirects (otherwise a 3xx is printed as it is)
              --max-redirects N         with --follow, at most N redirects (default 30), then exit 47
              --timeout SECONDS         give up after this long
              --http2                   HTTP/2 (prior knowledge on http://, ALPN on https://)
              --cert FILE               a client certificate (PEM)
              --key FILE                its private key, when not in --cert
              --pin sha256//BASE64      accept only a server key with this SHA-256 pin
              --insecure                do not verify TLS certificates or host names (warns)
              --check-status            exit 3, 4 or 5 for a 3xx, 4xx or 5xx answer
              -p, --print WHAT          what to print: H request headers, B request body, h response
                                        headers, b response body (default: hb on a terminal, b otherwise)
              -h, --help                this text
              --version                 the versions of Sluice and libcurl

            Exit codes:
            \(codes.joined(separator: "\n"))

            Examples:
              sluice httpbin.org/get q==sluice
              sluice -vv POST api.example.com/notes title=Hello draft:=true Authorization:"Bearer $TOKEN"
              sluice POST api.example.com/upload caption=Holiday photo@~/beach.jpg
              sluice --cache --retry 3 api.example.com/feed
              sluice -L --download debian.iso -c https://cdimage.debian.org/…/debian.iso
            """
    }
}
