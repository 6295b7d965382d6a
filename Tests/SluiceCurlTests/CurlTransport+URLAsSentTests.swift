import Foundation
import Sluice
import SluiceCurl
import Testing

@Suite("CurlTransport.urlAsSent: the URL as curl writes it")
struct CurlTransportURLAsSentTests {
    @Test func numericHostsDotSegmentsAndIPv6AreWrittenAsCurlSendsThem() {
        let transport = CurlTransport()
        let cases: [(String, String)] = [
            ("http://127.1/", "http://127.0.0.1/"),
            ("http://2130706433/", "http://127.0.0.1/"),
            ("http://0x7f.0.0.1/a", "http://127.0.0.1/a"),
            ("http://0177.0.0.1/", "http://127.0.0.1/"),
            ("http://127.0.0.1/static/../account/me", "http://127.0.0.1/account/me"),
            ("http://127.0.0.1/a/./b/../c?x=../y", "http://127.0.0.1/a/c?x=../y"),
            ("http://[0:0::1]:8080/x", "http://[::1]:8080/x"),
            ("http://127.0.0.1:0080/", "http://127.0.0.1:80/"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
            ("https://api.example.com/v1/items?page=2", "https://api.example.com/v1/items?page=2"),
        ]
        for (form, sent) in cases {
            #expect(transport.urlAsSent(URL(string: form)!).absoluteString == sent, "for \(form)")
        }
    }

    /// The one-scan shortcut never claims a URL is as sent when curl would write it otherwise.
    @Test func theShortcutAgreesWithCurlOnEveryForm() {
        let hosts = [
            "example.com", "a-b.example", "127.0.0.1", "127.1", "10.0.0.256", "01.2.3.4", "1.2.3.4.5", "0x7f.0.0.1", "host.", "a.1", "1a.b",
            "xn--nxasmq6b.example", "EXAMPLE.com", "[::1]", "255.255.255.255", "0.0.0.0", "4294967295", "a..b",
        ]
        let ports = ["", ":80", ":8080", ":065535", ":0", ":99999"]
        let paths = ["", "/", "/a/b", "/./a", "/a/.", "/a/..", "/a/../b", "/.a/..b/...", "/a%2e%2e/b", "/a?b=/../c", "/a#/../x", "/%7Euser"]
        var checked = 0
        for scheme in ["http", "https", "HTTP"] {
            for host in hosts {
                for port in ports {
                    for path in paths {
                        let url = "\(scheme)://user@\(host)\(port)\(path)"
                        guard CurlTransport.isAsSent(url) else { continue }
                        checked += 1
                        #expect(CurlTransport.curlWritten(url) == url, "curl writes \(url) otherwise")
                    }
                }
            }
        }
        #expect(checked > 100)
    }

    /// Issue 41, item 4: the core's rule for a numeric host (`URL.hostAsSent`, which a signer used
    /// alone signs) agrees with curl's own parser on every form.
    @Test func theCoresNumericHostRuleAgreesWithCurl() throws {
        let hosts = [
            "127.1", "127.0.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "0x7f000001", "10.0.0.1", "1.2.3", "0", "017700000001",
            "api.example.com", "example", "cafe.example", "Api.Example.COM",
        ]
        for host in hosts {
            let url = try #require(URL(string: "http://\(host):8080/x"))
            let written = try #require(CurlTransport.curlWritten(url.absoluteString))
            let curl = try #require(URL(string: written))
            #expect(url.hostAsSent == curl.host?.lowercased(), "\(host)")  // a name's case, which curl keeps, changes nothing
        }
    }
}
