import CCurl
import CCurlShim
import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// The request's URL, given to curl so that a query costs it no more than a path.
///
/// libcurl 7.88 formats a URL's query into the request head one character at a time through its
/// `printf` (about 100 instructions a byte: the target line's `?%s`, and again for the path and
/// query it builds for authentication), but copies a path, or a `CURLOPT_REQUEST_TARGET`, whole.
/// So a URL with a query goes to curl as its part before the `?` (`CURLOPT_URL`: the host, the
/// port, the path its cookie engine matches) and the path and query as the request target, byte
/// for byte what curl itself would have sent.
extension CurlTransfer {
    /// Sets `CURLOPT_URL`, and `CURLOPT_REQUEST_TARGET` when ``targetSplit(_:)`` allows; clears the
    /// target otherwise (the handle may be a recycled one).
    func configureURL(_ handle: UnsafeMutableRawPointer) throws {
        var url = request.urlText
        let splitDone: Bool = try url.withUTF8 { bytes in
            guard sendsQueryAsTarget, let split = Self.targetSplit(bytes), let base = bytes.baseAddress else { return false }
            // One buffer: the URL up to its `?`, a NUL, the path and query, a NUL. curl copies both.
            let targetLength = split.end - split.path
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: split.query + targetLength + 2) { buffer in
                guard let start = buffer.baseAddress else { return false }
                start.update(from: base, count: split.query)
                start[split.query] = 0
                let target = start + split.query + 1
                target.update(from: base + split.path, count: targetLength)
                target[targetLength] = 0
                let urlCode = start.withMemoryRebound(to: CChar.self, capacity: split.query + 1) {
                    sluice_easy_setopt_string(handle, CURLOPT_URL, $0)
                }
                try Self.check(urlCode, "CURLOPT_URL", length: bytes.count)
                let targetCode = target.withMemoryRebound(to: CChar.self, capacity: targetLength + 1) {
                    sluice_easy_setopt_string(handle, CURLOPT_REQUEST_TARGET, $0)
                }
                try Self.check(targetCode, "CURLOPT_REQUEST_TARGET", length: targetLength)
                return true
            }
        }
        if !splitDone {
            try Self.check(sluice_easy_setopt_string(handle, CURLOPT_URL, url), "CURLOPT_URL", length: url.utf8.count)
            sluice_easy_setopt_pointer(handle, CURLOPT_REQUEST_TARGET, nil)
        }
    }

    /// Where a URL's query starts (its `?`), where its path starts, and where the target ends (a
    /// `#` or the end), when sending the path and query as the request target puts on the wire
    /// exactly what curl would send for the whole URL: the URL has a query, curl writes it back
    /// unchanged (``CurlTransport/isAsSent(_:)``: its path has no dot segment for curl to remove),
    /// and the query is printable ASCII without spaces (curl refuses a URL with a control
    /// character or a space, and the target would not). `nil` otherwise: curl gets the whole URL.
    static func targetSplit(_ url: UnsafeBufferPointer<UInt8>) -> (query: Int, path: Int, end: Int)? {
        guard let base = url.baseAddress, let mark = memchr(base, Int32(UInt8(ascii: "?")), url.count) else { return nil }
        let query = UnsafeRawPointer(mark) - UnsafeRawPointer(base)
        var end = query + 1
        while end < url.count {
            let byte = url[end]
            if byte == UInt8(ascii: "#") { break }
            guard byte > 0x20, byte < 0x7F else { return nil }
            end += 1
        }
        // A `#` before the `?` makes it part of the fragment, not a query.
        guard memchr(base, Int32(UInt8(ascii: "#")), query) == nil, CurlTransport.isAsSent(bytes: url) else { return nil }
        let scheme = url[4] == UInt8(ascii: "s") ? 8 : 7
        let path = CurlTransport.authorityEnd(url, from: scheme)
        guard path < query else { return nil }
        return (query, path, end)
    }

    /// Throws when curl refused a string option. The value is not quoted: a URL can carry a
    /// password, and the one curl refuses is over its 8,000,000-byte limit.
    static func check(_ code: CURLcode, _ option: StaticString, length: Int) throws {
        guard code != CURLE_OK else { return }
        throw SluiceError(
            .invalidURL, "curl refused the URL (\(option), \(length) bytes): \(String(cString: curl_easy_strerror(code)))",
            underlying: CurlError(code, detail: ""))
    }
}
