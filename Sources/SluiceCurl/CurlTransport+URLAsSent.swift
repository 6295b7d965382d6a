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
        var bytes = Substring(url).utf8[...]
        if bytes.starts(with: "https://".utf8) {
            bytes = bytes.dropFirst(8)
        } else if bytes.starts(with: "http://".utf8) {
            bytes = bytes.dropFirst(7)
        } else {
            return false
        }
        let authorityEnd = bytes.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        var authority = bytes[..<authorityEnd]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        var host = authority
        if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            let port = authority[authority.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.first != UInt8(ascii: "0"), port.allSatisfy({ (48...57).contains($0) }),
                Int(Substring(port)) ?? 65536 <= 65535
            else { return false }
        }
        guard !host.isEmpty, host.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 45 }) else { return false }
        guard host.last != UInt8(ascii: ".") else { return false }
        let lastLabel = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).last ?? host
        if let first = lastLabel.first, !(97...122).contains(first) {
            // Not a name: only a dotted quad of plain decimals is already as curl writes it.
            let parts = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard parts.count == 4 else { return false }
            for part in parts {
                guard (1...3).contains(part.count), part.allSatisfy({ (48...57).contains($0) }), part.count == 1 || part.first != 48,
                    Int(Substring(part)) ?? 256 <= 255
                else { return false }
            }
        }
        // A dot segment (`/./`, `/../`, or one at the end of the path) is removed by curl.
        let pathEnd = bytes[authorityEnd...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let path = bytes[authorityEnd..<pathEnd]
        // curl writes an empty path as `/`.
        guard path.first == UInt8(ascii: "/") else { return false }
        var previous: UInt8 = 0
        var dots = 0
        for byte in path {
            if byte == UInt8(ascii: ".") {
                dots = previous == UInt8(ascii: "/") || dots > 0 ? dots + 1 : 0
            } else {
                if byte == UInt8(ascii: "/"), (1...2).contains(dots) { return false }
                dots = 0
            }
            previous = byte
        }
        return !(1...2).contains(dots)
    }
}
