import Foundation
import Sluice
import SluiceCache
import Testing

@Suite("CacheControl")
struct CacheControlTests {
    @Test func readsEveryResponseDirective() {
        let directives = CacheControl(
            #"max-age=60, s-maxage=120, must-revalidate, proxy-revalidate, public, immutable, "#
                + "stale-while-revalidate=30, stale-if-error=600, no-transform, must-understand"
        )
        #expect(directives.maxAge == 60)
        #expect(directives.sharedMaxAge == 120)
        #expect(directives.mustRevalidate && directives.proxyRevalidate && directives.isPublic)
        #expect(directives.immutable && directives.noTransform && directives.mustUnderstand)
        #expect(directives.staleWhileRevalidate == 30)
        #expect(directives.staleIfError == 600)
        #expect(!directives.noCache && !directives.noStore && !directives.isPrivate)
    }

    /// A value read again is answered from the recent values: the same directives as its first
    /// reading, for each of more values than are kept, long ones included, read in any order.
    @Test func aValueReadAgainReadsTheSame() {
        let values = (0..<300).map { "max-age=\($0), private=\"X-\($0)\"" } + ["no-store", String(repeating: "x-long, ", count: 40) + "max-age=7"]
        let first = values.map { CacheControl($0) }
        for (value, expected) in zip(values, first).reversed() { #expect(CacheControl(value) == expected) }
        for (index, directives) in first.prefix(300).enumerated() {
            #expect(directives.maxAge == index && directives.privateFields == ["X-\(index)"])
        }
        #expect(CacheControl("no-store").noStore && CacheControl("no-store").maxAge == nil)
        #expect(first.last?.maxAge == 7 && first.last?.extensions["x-long"] == .some(nil))
    }

    @Test func readsEveryRequestDirective() {
        let directives = CacheControl("max-age=0, max-stale=5, min-fresh=10, no-cache, no-store, only-if-cached")
        #expect(directives.maxAge == 0)
        #expect(directives.maxStale == .some(5))
        #expect(directives.minFresh == 10)
        #expect(directives.noCache && directives.noStore && directives.onlyIfCached)
        #expect(CacheControl("max-stale").maxStale == .some(nil))
        #expect(CacheControl("max-age=1").maxStale == nil)
    }

    @Test func namesAreCaseInsensitiveAndSpacesAreTolerated() {
        let directives = CacheControl("  MAX-AGE = 30 ,No-Store,   PRIVATE  ")
        #expect(directives.maxAge == 30)
        #expect(directives.noStore && directives.isPrivate)
    }

    @Test func quotedArgumentsAndFieldLists() {
        let directives = CacheControl(#"max-age="45", no-cache="Set-Cookie, X-Token", private="Authorization""#)
        #expect(directives.maxAge == 45)
        #expect(directives.noCache)
        #expect(directives.noCacheFields == ["Set-Cookie", "X-Token"])
        #expect(directives.privateFields == ["Authorization"])
        // A comma inside quotes does not end the directive; escapes are resolved.
        let escaped = CacheControl(#"x-note="a, \"b\"", max-age=5"#)
        #expect(escaped.extensions["x-note"] == .some(#"a, "b""#))
        #expect(escaped.maxAge == 5)
    }

    @Test func theFirstOfARepeatedDirectiveWins() throws {
        #expect(CacheControl("max-age=10, max-age=99").maxAge == 10)
        var headers = HTTPFields()
        try headers.append(name: "Cache-Control", value: "max-age=7")
        try headers.append(name: "cache-control", value: "max-age=8, no-store")
        let directives = CacheControl(headers)
        #expect(directives.maxAge == 7)
        #expect(directives.noStore)
    }

    @Test func invalidFreshnessMeansStaleAndOtherInvalidArgumentsAreIgnored() {
        #expect(CacheControl("max-age=abc").maxAge == 0)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("max-age").maxAge == 0)
        #expect(CacheControl("s-maxage=1.5").sharedMaxAge == 0)
        #expect(CacheControl("min-fresh=x").minFresh == nil)
        #expect(CacheControl("max-stale=soon").maxStale == nil)
        #expect(CacheControl("stale-if-error=").staleIfError == nil)
    }

    @Test func hugeValuesAreCapped() {
        #expect(CacheControl("max-age=99999999999999999999999").maxAge == CacheControl.maximumDeltaSeconds)
        #expect(CacheControl("max-age=2147483647").maxAge == 2_147_483_647)
    }

    @Test func unknownDirectivesAreKeptAsExtensions() {
        let directives = CacheControl("community=UCI, foo, max-age=3")
        #expect(directives.extensions["community"] == .some("UCI"))
        #expect(directives.extensions["foo"] == .some(nil))
        #expect(directives.maxAge == 3)
        #expect(CacheControl("").isEmpty)
        #expect(CacheControl(" , ,").isEmpty)
    }
}
