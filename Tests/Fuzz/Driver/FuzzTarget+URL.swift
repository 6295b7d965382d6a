import Foundation
import Sluice
import SluiceURLEncoding

extension FuzzTarget {
    /// `Client.join(base:path:)`, `PercentEncoding.encode` and `PercentEncoding.url`, on an input
    /// cut at NUL into a base and a path. Failures are `.invalidURL`; encoding yields only allowed
    /// ASCII and is idempotent (a query name or value, which is data, decodes back instead); a URL
    /// made from text has a scheme and a host.
    static let url = FuzzTarget(name: "url", summary: "URL joining and percent-encoding") { data in
        let parts = FuzzTarget.strings(data)
        let base = parts.count > 1 ? URL(string: parts[0]) : URL(string: "https://api.example.com/v1/")
        let path = parts.last ?? ""
        do throws(SluiceError) {
            _ = try URLJoin.join(path, to: base)
        } catch {
            require(error.code == .invalidURL, "join failed with \(error.code), not invalidURL")
        }
        for component in [PercentEncoding.Component.path, .query, .queryItem, .fragment] {
            let encoded = PercentEncoding.encode(path, keeping: component)
            require(encoded.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "\(component) encoding left a byte unescaped: \(encoded)")
            if component == .queryItem {
                // A name or value is data: its `%` is encoded too, and decoding gives it back.
                require(PercentEncoding.decode(encoded) == path, "queryItem encoding does not decode to what it encoded")
            } else {
                require(PercentEncoding.encode(encoded, keeping: component) == encoded, "\(component) encoding is not idempotent")
            }
        }
        do throws(SluiceError) {
            let url = try PercentEncoding.url(path)
            require(url.scheme?.isEmpty == false && url.host != nil, "\(url) has no scheme or host")
        } catch {
            require(error.code == .invalidURL, "url(_:) failed with \(error.code), not invalidURL")
        }
    }
}
