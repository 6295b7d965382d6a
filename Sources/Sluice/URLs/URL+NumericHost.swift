import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension URL {
    /// The host as curl writes it on the wire when it is a numeric IPv4 address in a short or
    /// other-base form (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1` are all `127.0.0.1`,
    /// read as `inet_aton(3)` and curl read them); any other host lowercased, as it is. For a
    /// stage with no transport to ask (a signer used alone): with one,
    /// `MiddlewareNext.urlAsSent(_:)` is the transport's own answer. `package`: the rule is
    /// curl's, not API.
    package var hostAsSent: String? {
        guard let host = host?.lowercased() else { return nil }
        // Only digits, dots and hex letters with an x can be a numeric address; a name with a
        // letter elsewhere is left alone, and so is anything inet_aton refuses.
        guard !host.isEmpty, host.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x78 || ($0 >= 0x61 && $0 <= 0x66) }),
            host.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true
        else { return host }
        var address = in_addr()
        guard inet_aton(host, &address) != 0 else { return host }
        let value = UInt32(bigEndian: address.s_addr)
        return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }
}
