import CCurl
import CCurlShim
import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The easy handle's options: shared ones once per pooled handle, the rest per request.
extension CurlTransfer {
    /// Sets the options every request of a transport shares, once, on a new easy handle. A
    /// recycled handle keeps them (no `curl_easy_reset`): ``configure(_:)`` sets every option
    /// that varies between requests, each time.
    static func configureShared(_ handle: UnsafeMutableRawPointer, _ configuration: CurlTransport.Configuration, routing: Routing) throws {
        sluice_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        // Nothing libcurl prints reaches stderr (THREATS §16): the handle's own verbose output goes
        // only to the debug callback, and the DNS-over-HTTPS handles curl starts from this one
        // inherit this stream, which keeps nothing.
        guard sluice_easy_setopt_quiet(handle) == CURLE_OK else {
            throw SluiceError(.other, "curl could not be given a silent error stream (no memory)")
        }
        try set(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        try set(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        sluice_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.wholeMilliseconds)
        if let (bytesPerSecond, duration) = configuration.lowSpeedLimit {
            sluice_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, bytesPerSecond)
            sluice_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, duration.wholeMilliseconds / 1000))
        } else if let idle = configuration.idleTimeout {
            // Under 1 byte a second for the whole window: nothing moved.
            sluice_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            sluice_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, idle.wholeMilliseconds / 1000))
        }
        let version: Int =
            switch configuration.httpVersion {
            case .http1_1: CURL_HTTP_VERSION_1_1
            case .http2: CURL_HTTP_VERSION_2TLS
            case .http2PriorKnowledge: CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
            }
        sluice_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, version)
        if configuration.httpVersion == .http2PriorKnowledge && sluice_curl_version_num() < 0x08_00_00 {
            // libcurl before 8.0.0 breaks a reused h2c prior-knowledge connection ("Error in the
            // HTTP2 framing layer", curl issue #10634, fixed in 8.0.0): use a new one each time.
            sluice_easy_setopt_long(handle, CURLOPT_FORBID_REUSE, 1)
            sluice_easy_setopt_long(handle, CURLOPT_FRESH_CONNECT, 1)
        }
        try configureTLS(handle, configuration.tls)
        try set(handle, CURLOPT_PROXY, configuration.proxy ?? "")
        if let noProxy = configuration.noProxy { try set(handle, CURLOPT_NOPROXY, noProxy) }
        if configuration.decodesContentEncoding { try set(handle, CURLOPT_ACCEPT_ENCODING, "") }
        if let resolve = routing.resolve.pointer { sluice_easy_setopt_slist(handle, CURLOPT_RESOLVE, resolve) }
        if let server = configuration.dnsOverHTTPS { try set(handle, CURLOPT_DOH_URL, server.absoluteString) }
        let dnsLifetime = configuration.dnsCacheLifetime.map { $0.clampedWait.wholeMilliseconds / 1000 } ?? -1
        sluice_easy_setopt_long(handle, CURLOPT_DNS_CACHE_TIMEOUT, dnsLifetime)
        sluice_easy_setopt_long(handle, CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS, configuration.happyEyeballsDelay.clampedWait.wholeMilliseconds)
        if let interface = configuration.localInterface { try set(handle, CURLOPT_INTERFACE, interface) }
        // Sent only when the request has no User-Agent field of its own (curl's rule).
        // Through a proxy, curl's own option also names the client on the CONNECT request.
        // Otherwise the field goes in the request's header list (`DefaultFields`): curl formats
        // its option into the head a second time, about 4,000 instructions a request more.
        if configuration.proxy != nil, let userAgent = configuration.userAgent { try set(handle, CURLOPT_USERAGENT, userAgent) }
        sluice_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback)
        sluice_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, writeCallback)
        sluice_easy_setopt_data_callback(handle, CURLOPT_READFUNCTION, readCallback)
        sluice_easy_setopt_seek(handle, seekCallback)
        sluice_easy_setopt_xferinfo(handle, progressCallback)
        if configuration.recordsRequestHeads { sluice_easy_setopt_debug(handle, debugCallback) }
    }

    /// Sets every option that varies between requests (on a handle that
    /// ``configureShared(_:_:routing:)`` prepared, possibly used before).
    func configure(_ handle: UnsafeMutableRawPointer) throws {
        self.handle = handle
        let me = Unmanaged.passUnretained(self).toOpaque()
        try configureURL(handle)

        var limit = requestTimeout
        if let remaining = context.remainingTime { limit = min(limit ?? remaining, remaining) }
        sluice_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, limit.map { max(1, $0.wholeMilliseconds) } ?? 0)

        try configureMethodAndBody(handle)
        try configureHeaders(handle)
        try configureRouting(handle)
        if let digestCredentials { try configureDigest(handle, digestCredentials) }

        sluice_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
        sluice_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        sluice_easy_setopt_pointer(handle, CURLOPT_READDATA, me)
        sluice_easy_setopt_pointer(handle, CURLOPT_SEEKDATA, me)
        sluice_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)
        if recordsRequestHead || watchesDuplexEnd { sluice_easy_setopt_pointer(handle, CURLOPT_DEBUGDATA, me) }
        sluice_easy_setopt_long(handle, CURLOPT_NOPROGRESS, context.progress == nil ? 1 : 0)
        if let file = request.responseBodyFile {
            // Created 0600 (a body can be private), and never through a symbolic link someone
            // planted at the path.
            let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0, let output = fdopen(descriptor, "wb") else {
                let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
                throw SluiceError(.writeFailed, "cannot open \(file.path) to write the response body: \(reason)")
            }
            outputFile = output
        }
    }

    static func configureTLS(_ handle: UnsafeMutableRawPointer, _ tls: CurlTransport.Configuration.TLS) throws {
        if !tls.verifyPeer {
            sluice_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            sluice_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let caFile = tls.caFile { try set(handle, CURLOPT_CAINFO, caFile) }
        if let caDirectory = tls.caDirectory { try set(handle, CURLOPT_CAPATH, caDirectory) }
        if let certificate = tls.clientCertificate {
            try set(handle, CURLOPT_SSLCERT, certificate.path)
            try set(handle, CURLOPT_SSLCERTTYPE, certificate.format.rawValue)
            if let key = certificate.keyPath { try set(handle, CURLOPT_SSLKEY, key) }
            if let password = certificate.password { try set(handle, CURLOPT_KEYPASSWD, password) }
        }
        if let pin = tls.pinnedPublicKey { try set(handle, CURLOPT_PINNEDPUBLICKEY, pin) }
        let minimum =
            switch tls.minimumVersion {
            case .tls1_2: CURL_SSLVERSION_TLSv1_2
            case .tls1_3: CURL_SSLVERSION_TLSv1_3
            }
        sluice_easy_setopt_long(handle, CURLOPT_SSLVERSION, minimum)
    }

    func configureMethodAndBody(_ handle: UnsafeMutableRawPointer) throws {
        let method = request.method
        if method == .head, !(request.body.length == 0) {
            // Checked before a file is opened or a one-shot stream is read.
            throw SluiceError(.invalidBody, "a HEAD request cannot carry a body")
        }
        let length: Int64?
        switch method == .head ? .empty : request.body {
        case .empty:
            bodySource = .none
            length = nil
        case .bytes(let data):
            bodySource = .data(data, offset: 0)
            length = Int64(data.count)
        case .file(let url):
            guard let file = fopen(url.path, "rb") else {
                throw SluiceError(.invalidBody, "cannot open the body file \(url.path): \(String(cString: strerror(errno)))")
            }
            bodySource = .file(file, path: url.path)
            length = request.body.length
            bodyDeclaredLength = length ?? -1
        case .stream(let stream):
            if stream.trailers != nil { try configureTrailers(handle) }
            let chunks = try stream.makeChunks()
            bodySource = .stream
            length = stream.length
            bodyDeclaredLength = length ?? -1
            watchDuplexEnd(handle)
            startPump(chunks, trailers: stream.trailers)
        }

        // Every method option is set, so nothing of the handle's previous request survives.
        // (Setting POSTFIELDS makes the method POST, so HTTPGET comes after it.)
        sluice_easy_setopt_pointer(handle, CURLOPT_CUSTOMREQUEST, nil)
        sluice_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
        sluice_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)  // clears POST, NOBODY, UPLOAD
        if case .none = bodySource {
            if method == .get {
                return
            } else if method == .head {
                sluice_easy_setopt_long(handle, CURLOPT_NOBODY, 1)
            } else if method == .post {
                sluice_easy_setopt_long(handle, CURLOPT_POST, 1)
                sluice_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0)
                try Self.set(handle, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                try Self.set(handle, CURLOPT_CUSTOMREQUEST, method.rawValue)
            }
            return
        }
        // POST with a read callback sends the body (chunked when its length is unknown); any
        // other method name goes on the request line.
        sluice_easy_setopt_long(handle, CURLOPT_POST, 1)
        sluice_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(length ?? -1))
        if method != .post { try Self.set(handle, CURLOPT_CUSTOMREQUEST, method.rawValue) }
    }

    /// A stream body with trailer fields: curl asks for them before the chunked body's last
    /// line. Trailers need chunked HTTP/1.1, so this request is sent over HTTP/1.1 (a transport
    /// that speaks HTTP/2 by prior knowledge cannot send them: `.invalidBody`).
    func configureTrailers(_ handle: UnsafeMutableRawPointer) throws {
        if httpVersion == .http2PriorKnowledge {
            throw SluiceError(
                .invalidBody,
                "a request body with trailers needs HTTP/1.1, and this transport speaks HTTP/2 with prior knowledge (CurlTransport.Configuration.httpVersion)")
        }
        sendsTrailers = true
        sluice_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        sluice_easy_setopt_trailer(handle, trailerCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Appends the trailer fields the body's stream gave to `list` (curl frees it); called by
    /// curl on the loop's thread, after the stream's end was fed.
    func appendTrailers(to list: UnsafeMutablePointer<UnsafeMutablePointer<curl_slist>?>) -> Int32 {
        for field in requestTrailers ?? [:] {
            list.pointee = curl_slist_append(list.pointee, "\(field.name): \(field.value)")
        }
        return sluice_trailerfunc_ok()
    }

    func configureHeaders(_ handle: UnsafeMutableRawPointer) throws {
        let defaults = loop.defaultFields
        if let problem = defaults.problem { throw problem }
        if request.headers.isEmpty, omittedDefaultFields.isEmpty {
            // curl asks for 100-continue only before a body: a request without one needs no "Expect:".
            let shared = if case .none = bodySource { defaults.bodyless } else { defaults.withBody }
            sluice_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, shared.pointer)
            return
        }
        let headers = request.headers
        // First, where curl would put its own: right after Host and Accept.
        let userAgent = headers.contains("User-Agent") ? nil : defaults.userAgentLine
        // No "Expect: 100-continue" round trip unless the caller asks for it (curl asks only
        // before a body).
        let expect: Bool = if case .none = bodySource { false } else { !headers.contains("Expect") }
        let omitted = omittedDefaultFields
        // Each line as its parts: the text before a separator, the separator, the text after it.
        func forEachLine(_ line: (String, StaticString, String) -> Void) {
            if let userAgent { line(userAgent, "", "") }
            // "Name;" is curl's way to send a header with an empty value.
            for field in headers { field.value.isEmpty ? line(field.name, ";", "") : line(field.name, ": ", field.value) }
            // "Name:" with nothing after it is curl's way to leave out a field it would add.
            for name in omitted where !headers.contains(name) { line(name, ":", "") }
            if expect { line("Expect:", "", "") }
        }
        var count = 0, bytes = 0
        forEachLine { first, separator, second in
            count += 1
            bytes += first.utf8.count + separator.utf8CodeUnitCount + second.utf8.count + 1
        }
        // One allocation for the whole list: its nodes, then each line and its terminating zero.
        // curl reads the list and never changes or frees it (CURLOPT_HTTPHEADER), so
        // `releaseResources` frees the block with one `free`.
        let nodesSize = MemoryLayout<curl_slist>.stride * count
        guard let block = malloc(nodesSize + bytes) else {
            throw SluiceError(.other, "no memory for the \(count) header lines (\(bytes) bytes) of \(request)")
        }
        let nodes = block.bindMemory(to: curl_slist.self, capacity: count)
        let text = UnsafeMutableRawPointer(block + nodesSize)
        _ = text.bindMemory(to: CChar.self, capacity: bytes)
        var index = 0, offset = 0
        forEachLine { first, separator, second in
            let start = text + offset
            var end = Self.copy(first, to: start)
            end.copyMemory(from: separator.utf8Start, byteCount: separator.utf8CodeUnitCount)
            end = Self.copy(second, to: end + separator.utf8CodeUnitCount)
            end.storeBytes(of: 0, as: CChar.self)
            offset = text.distance(to: end) + 1
            let next = index + 1 < count ? nodes + index + 1 : nil
            (nodes + index).initialize(to: curl_slist(data: start.assumingMemoryBound(to: CChar.self), next: next))
            index += 1
        }
        headerList = nodes
        sluice_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, nodes)
    }

    /// Copies `text`'s UTF-8 bytes to `destination`; returns where they end.
    static func copy(_ text: String, to destination: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return destination }
            destination.copyMemory(from: base, byteCount: bytes.count)
            return destination + bytes.count
        }
    }

    /// The fields a transport adds to every request that has none of its own: `User-Agent` (when
    /// no proxy is set: see `configureShared`) and, before a body, `Expect:` (no 100-continue).
    /// Made once per event loop; the shared lists are curl's to read and the loop frees them
    /// after its last transfer.
    struct DefaultFields: @unchecked Sendable {
        // @unchecked: the lists are made in the loop's init and freed when its thread ends,
        // after its last transfer; curl only reads them, and nothing else touches them.
        /// The `User-Agent: …` line, or nil when the option sends it, there is none, or
        /// `omittedDefaultFields` leaves it out.
        let userAgentLine: String?
        /// Why the configured user agent cannot be sent (a byte no field value may hold).
        let problem: SluiceError?
        /// The list for a request without fields or body, and for one with a body.
        let bodyless: HeaderList
        let withBody: HeaderList

        init(_ configuration: CurlTransport.Configuration) {
            var line: String?
            var problem: SluiceError?
            if let userAgent = configuration.userAgent, !userAgent.isEmpty {
                var fields = HTTPFields()
                do throws(SluiceError) {
                    try fields.append(name: "User-Agent", value: userAgent)
                    let omitted = configuration.omittedDefaultFields.contains { $0.lowercased() == "user-agent" }
                    if configuration.proxy == nil, !omitted { line = "User-Agent: \(userAgent)" }
                } catch {
                    problem = SluiceError(
                        .invalidHeader, "CurlTransport.Configuration.userAgent is not a valid field value: \(error.message)",
                        underlying: error.underlying)
                }
            }
            userAgentLine = line
            self.problem = problem
            bodyless = HeaderList(line.map { curl_slist_append(nil, $0) } ?? nil)
            var withBody = line.map { curl_slist_append(nil, $0) } ?? nil
            withBody = curl_slist_append(withBody, "Expect:")
            self.withBody = HeaderList(withBody)
        }

        /// Frees both lists (the loop thread, after its last transfer).
        func free() {
            if let pointer = bodyless.pointer { curl_slist_free_all(pointer) }
            if let pointer = withBody.pointer { curl_slist_free_all(pointer) }
        }
    }

    /// A curl header list shared by a loop's transfers.
    struct HeaderList: @unchecked Sendable {
        // @unchecked: curl only reads it, and its owner frees it after every reader is done.
        let pointer: UnsafeMutablePointer<curl_slist>?
        init(_ pointer: UnsafeMutablePointer<curl_slist>?) { self.pointer = pointer }
    }

    /// Digest credentials for a request to their origin; none for any other (a pooled handle
    /// may have carried them for an earlier request).
    func configureDigest(_ handle: UnsafeMutableRawPointer, _ credentials: CurlTransport.DigestCredentials) throws {
        let covered = credentials.covers(request.authorityURL)
        sluice_easy_setopt_long(handle, CURLOPT_HTTPAUTH, covered ? sluice_curlauth_digest() : sluice_curlauth_basic())
        for (option, value) in [(CURLOPT_USERNAME, credentials.user), (CURLOPT_PASSWORD, credentials.password)] {
            let code = covered ? sluice_easy_setopt_string(handle, option, value) : sluice_easy_setopt_pointer(handle, option, nil)
            // The values are credentials: never quoted.
            guard code == CURLE_OK else {
                throw SluiceError(
                    .other, "curl refused the digest credentials: \(String(cString: curl_easy_strerror(code)))",
                    underlying: CurlError(code, detail: ""))
            }
        }
    }

    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws {
        let code = sluice_easy_setopt_string(handle, option, value)
        if code != CURLE_OK {
            throw SluiceError(
                code == CURLE_UNKNOWN_OPTION || code == CURLE_NOT_BUILT_IN ? .other : .invalidURL,
                // The value is not quoted: a URL or a proxy can carry a password.
                "curl refused option \(option.rawValue) (\(value.utf8.count) bytes): \(String(cString: curl_easy_strerror(code)))",
                underlying: CurlError(code, detail: "")
            )
        }
    }
}
