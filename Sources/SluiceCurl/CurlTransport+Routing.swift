import CCurl
import CCurlShim
import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

extension CurlTransport {
    /// Where a name resolves before (and instead of) DNS: curl's `--resolve`. The URL, its `Host`
    /// field, the TLS server name and the cookies stay the name's.
    ///
    /// ```swift
    /// import SluiceCurl
    ///
    /// var configuration = CurlTransport.Configuration()
    /// configuration.resolve = [.init(host: "api.example.com", port: 443, addresses: ["10.0.0.7", "10.0.0.8"])]
    /// let transport = CurlTransport(configuration: configuration)
    /// ```
    public struct ResolveEntry: Sendable, Hashable {
        /// The name as the URL writes it.
        public var host: String
        /// The URL's port (443 for `https` unless it names another).
        public var port: Int
        /// The IPv4 or IPv6 addresses to use, in order.
        public var addresses: [String]

        /// `host:port` resolved to `addresses`.
        public init(host: String, port: Int, addresses: [String]) {
            self.host = host
            self.port = port
            self.addresses = addresses
        }
    }

    /// Where a connection for `host:port` goes instead: curl's `--connect-to`. Only the connection
    /// moves; the URL, its `Host` field, the TLS server name and the cookies stay the name's. For a
    /// whole transport (``Configuration/connectTo``) or one request (`HTTPRequest.connectTo`).
    ///
    /// ```swift
    /// import Foundation
    /// import Sluice
    /// import SluiceCurl
    ///
    /// var request = HTTPRequest(url: URL(string: "https://api.example.com/health")!)
    /// request.connectTo = [.init(host: "api.example.com", port: 443, toHost: "10.0.0.7", toPort: 8443)]
    /// ```
    public struct ConnectTo: Sendable, Hashable {
        /// The name and port as the URL writes them.
        public var host: String
        /// The URL's port.
        public var port: Int
        /// The host name or address to connect to instead.
        public var toHost: String
        /// The port to connect to instead.
        public var toPort: Int

        /// Connections for `host:port` go to `toHost:toPort`.
        public init(host: String, port: Int, toHost: String, toPort: Int) {
            self.host = host
            self.port = port
            self.toHost = toHost
            self.toPort = toPort
        }
    }
}

extension CurlTransfer {
    /// The transport's `--resolve` and `--connect-to` lists, made once per event loop and freed
    /// when its thread ends; or why they cannot be (thrown by every request).
    struct Routing: @unchecked Sendable {
        // @unchecked: the lists are made in the loop's init and freed when its thread ends, after
        // its last transfer; curl only reads them, and nothing else touches them.
        let resolve: HeaderList
        let connectTo: HeaderList
        let problem: SluiceError?
        /// The DoH server a failed name lookup asked, as its origin (`https://host:443`), for
        /// its message: never the user or password its URL may carry.
        let dnsOverHTTPSOrigin: String?

        init(_ configuration: CurlTransport.Configuration) {
            dnsOverHTTPSOrigin = configuration.dnsOverHTTPS?.origin
            var resolveLines: [String] = [], connectToLines: [String] = []
            do throws(SluiceError) {
                if let server = configuration.dnsOverHTTPS { try Self.checkDNSOverHTTPS(server) }
                for entry in configuration.resolve { resolveLines.append(try Self.line(entry)) }
                for entry in configuration.connectTo { connectToLines.append(try Self.line(entry, setting: "connectTo")) }
                problem = nil
            } catch {
                (resolveLines, connectToLines) = ([], [])
                problem = error
            }
            resolve = HeaderList(Self.list(resolveLines))
            connectTo = HeaderList(Self.list(connectToLines))
        }

        func free() {
            curl_slist_free_all(resolve.pointer)
            curl_slist_free_all(connectTo.pointer)
        }

        static func list(_ lines: [String]) -> UnsafeMutablePointer<curl_slist>? {
            var list: UnsafeMutablePointer<curl_slist>?
            for line in lines { list = curl_slist_append(list, line) }
            return list
        }

        /// `host:port:address,address`, each part checked.
        static func line(_ entry: CurlTransport.ResolveEntry) throws(SluiceError) -> String {
            let setting = "CurlTransport.Configuration.resolve"
            try checkHost(entry.host, setting)
            try checkPort(entry.port, setting)
            guard !entry.addresses.isEmpty else {
                throw SluiceError(.misconfigured, "\(setting): \(entry.host):\(entry.port) has no address")
            }
            let addresses = try entry.addresses.map { address throws(SluiceError) -> String in
                if isAddress(address, family: AF_INET) { return address }
                if isAddress(address, family: AF_INET6) { return "[\(address)]" }
                throw SluiceError(.misconfigured, "\(setting): \(String(reflecting: address)) is not an IPv4 or IPv6 address")
            }
            return "\(entry.host):\(entry.port):\(addresses.joined(separator: ","))"
        }

        /// curl asks a DoH server over HTTPS only, and needs its host. The message names the
        /// scheme and host, never a user or password the URL carries.
        static func checkDNSOverHTTPS(_ server: URL) throws(SluiceError) {
            guard server.scheme?.lowercased() == "https", let host = server.host, !host.isEmpty else {
                throw SluiceError(
                    .misconfigured,
                    "CurlTransport.Configuration.dnsOverHTTPS: \(server.scheme ?? "no scheme")://\(server.host ?? "") is not an https URL with a host "
                        + "(DNS over HTTPS is asked over TLS only)")
            }
        }

        /// `host:port:toHost:toPort`, each part checked.
        static func line(_ entry: CurlTransport.ConnectTo, setting: String) throws(SluiceError) -> String {
            let name = setting == "connectTo" ? "CurlTransport.Configuration.connectTo" : "request.connectTo"
            try checkHost(entry.host, name)
            try checkPort(entry.port, name)
            try checkPort(entry.toPort, name)
            let toHost = isAddress(entry.toHost, family: AF_INET6) ? "[\(entry.toHost)]" : entry.toHost
            if toHost == entry.toHost { try checkHost(entry.toHost, name) }
            return "\(entry.host):\(entry.port):\(toHost):\(entry.toPort)"
        }

        /// A name or an IPv4 address: letters, digits, `-`, `.` and `_`, 1 to 253 of them.
        static func checkHost(_ host: String, _ setting: String) throws(SluiceError) {
            let allowed = host.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            }
            guard allowed, (1...253).contains(host.utf8.count) else {
                throw SluiceError(.misconfigured, "\(setting): \(String(reflecting: host)) is not a host name")
            }
        }

        static func checkPort(_ port: Int, _ setting: String) throws(SluiceError) {
            guard (1...65_535).contains(port) else {
                throw SluiceError(.misconfigured, "\(setting): \(port) is not a TCP port (1...65535)")
            }
        }

        static func isAddress(_ text: String, family: Int32) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 16)
            return inet_pton(family, text, &buffer) == 1
        }
    }

    /// Sets the connect-to list for this request: its own (`HTTPRequest.connectTo`), or the
    /// transport's; a pooled handle may have carried another request's.
    func configureRouting(_ handle: UnsafeMutableRawPointer) throws {
        let routing = loop.routing
        if let problem = routing.problem { throw problem }
        let own = request.options[ConnectToKey.self]
        guard !own.isEmpty else {
            sluice_easy_setopt_slist(handle, CURLOPT_CONNECT_TO, routing.connectTo.pointer)
            return
        }
        var lines: [String] = []
        for entry in own { lines.append(try Routing.line(entry, setting: "request")) }
        let list = Routing.list(lines)
        connectToList = list
        sluice_easy_setopt_slist(handle, CURLOPT_CONNECT_TO, list)
    }
}
