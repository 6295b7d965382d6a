import CCurl
import Foundation
import Sluice

extension CurlTransport {
    /// `url` as curl will send it, parsed and written back by libcurl's own URL parser (the one
    /// `CURLOPT_URL` goes through): numeric and shortened IPv4 hosts (`127.1`, `2130706433`,
    /// `0x7f.0.0.1`, `0177.0.0.1`) as dotted quads, dot segments removed (`/static/../me` is
    /// `/me`), IPv6 literals in their shortest form, ports without leading zeros. A URL curl would
    /// refuse is returned unchanged (sending it fails with `.invalidURL`).
    ///
    /// ```swift
    /// import Foundation
    /// import SluiceCurl
    ///
    /// CurlTransport().urlAsSent(URL(string: "http://127.1/static/../account/me")!)   // http://127.0.0.1/account/me
    /// ```
    public func urlAsSent(_ url: URL) -> URL {
        let text = url.absoluteString
        guard !Self.isAsSent(text), let written = Self.curlWritten(text), written != text else { return url }
        return URL(string: written) ?? url
    }

    /// `url` parsed and written back by libcurl's URL API; `nil` when curl refuses it.
    package static func curlWritten(_ url: String) -> String? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK else { return nil }
        var written: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, CURLUPART_URL, &written, 0) == CURLUE_OK, let written else { return nil }
        defer { curl_free(written) }
        return String(cString: written)
    }

    /// Whether curl would write `url` back byte for byte, told from one scan without asking it: a
    /// lowercase `http` or `https` scheme, a host of letters, digits, dots and hyphens that is
    /// either a name (its last label starts with a letter) or a plain dotted quad, a port
    /// without a leading zero, no `%` in the authority, and no dot segment in the path. Anything
    /// else goes through curl's parser.
    package static func isAsSent(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { isAsSent(bytes: $0) }
    }

    /// ``isAsSent(_:)`` over the URL's bytes: one pass with indices, no substrings.
    static func isAsSent(bytes url: UnsafeBufferPointer<UInt8>) -> Bool {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: "."), zero = UInt8(ascii: "0")
        func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }
        func starts(with prefix: StaticString) -> Bool {
            guard url.count >= prefix.utf8CodeUnitCount else { return false }
            return (0..<prefix.utf8CodeUnitCount).allSatisfy { url[$0] == prefix.utf8Start[$0] }
        }
        let count = url.count
        let start: Int
        if starts(with: "https://") {
            start = 8
        } else if starts(with: "http://") {
            start = 7
        } else {
            return false
        }
        let authorityEnd = Self.authorityEnd(url, from: start)
        var hostStart = start
        var at = authorityEnd
        while at > start {
            at -= 1
            if url[at] == UInt8(ascii: "@") {
                hostStart = at + 1
                break
            }
        }
        var hostEnd = hostStart
        while hostEnd < authorityEnd, url[hostEnd] != UInt8(ascii: ":") { hostEnd += 1 }
        if hostEnd < authorityEnd {
            let portStart = hostEnd + 1
            guard (1...5).contains(authorityEnd - portStart), url[portStart] != zero else { return false }
            var port = 0
            for index in portStart..<authorityEnd {
                guard isDigit(url[index]) else { return false }
                port = port * 10 + Int(url[index] - zero)
            }
            guard port <= 65535 else { return false }
        }
        guard hostEnd > hostStart, url[hostEnd - 1] != dot else { return false }
        for index in hostStart..<hostEnd {
            let byte = url[index]
            guard (97...122).contains(byte) || isDigit(byte) || byte == dot || byte == UInt8(ascii: "-") else { return false }
        }
        var lastLabel = hostEnd
        while lastLabel > hostStart, url[lastLabel - 1] != dot { lastLabel -= 1 }
        if !(97...122).contains(url[lastLabel]) {
            // Not a name: only a dotted quad of plain decimals is already as curl writes it.
            var parts = 0
            var partStart = hostStart
            for index in hostStart...hostEnd where index == hostEnd || url[index] == dot {
                let length = index - partStart
                guard (1...3).contains(length), length == 1 || url[partStart] != zero else { return false }
                var value = 0
                for digit in partStart..<index {
                    guard isDigit(url[digit]) else { return false }
                    value = value * 10 + Int(url[digit] - zero)
                }
                guard value <= 255 else { return false }
                parts += 1
                partStart = index + 1
            }
            guard parts == 4 else { return false }
        }
        // A dot segment (`/./`, `/../`, or one at the end of the path) is removed by curl.
        var pathEnd = authorityEnd
        while pathEnd < count, url[pathEnd] != UInt8(ascii: "?"), url[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        // curl writes an empty path as `/`.
        guard pathEnd > authorityEnd, url[authorityEnd] == slash else { return false }
        var previous: UInt8 = 0
        var dots = 0
        for index in authorityEnd..<pathEnd {
            let byte = url[index]
            if byte == dot {
                dots = previous == slash || dots > 0 ? dots + 1 : 0
            } else {
                if byte == slash, (1...2).contains(dots) { return false }
                dots = 0
            }
            previous = byte
        }
        return !(1...2).contains(dots)
    }

    /// Where the authority that starts at `start` ends: at the first `/`, `?` or `#`, or the end.
    static func authorityEnd(_ url: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var end = start
        while end < url.count, url[end] != UInt8(ascii: "/"), url[end] != UInt8(ascii: "?"), url[end] != UInt8(ascii: "#") { end += 1 }
        return end
    }
}
