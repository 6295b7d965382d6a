import Foundation
import SluiceCache

extension FuzzTarget {
    /// `CacheControl(_:)`: every number is delta-seconds in 0...2^31 (RFC 9111 §1.2.2), names are
    /// lowercased, and parsing is deterministic.
    static let cacheControl = FuzzTarget(name: "cache-control", summary: "the Cache-Control parser") { data in
        let text = FuzzTarget.text(data)
        let directives = CacheControl(text)
        let numbers = [
            directives.maxAge, directives.sharedMaxAge, directives.minFresh,
            directives.staleWhileRevalidate, directives.staleIfError, directives.maxStale ?? nil,
        ]
        for case let number? in numbers {
            require((0...CacheControl.maximumDeltaSeconds).contains(number), "delta-seconds \(number) out of range")
        }
        for name in directives.extensions.keys {
            require(name == name.lowercased(), "extension name \(String(reflecting: name)) not lowercased")
            require(!name.isEmpty, "an empty directive name")
        }
        require(CacheControl(text) == directives, "parsing twice gave two answers")
    }
}
