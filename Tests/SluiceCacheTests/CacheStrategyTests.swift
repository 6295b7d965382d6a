import Foundation
import Sluice
import SluiceCache
import Testing

/// A stored response for the strategy tests: received at `at`, with these fields.
func entry(
    _ fields: [(String, String)], status: Int = 200, at time: Date = Date(timeIntervalSince1970: 1_000_000),
    sentAt sent: Date? = nil, vary: [String: String?] = [:]
) -> CachedResponse {
    var headers = HTTPFields()
    for (name, value) in fields { try! headers.append(name: name, value: value) }
    return CachedResponse(
        method: "GET", url: "https://example.com/a", status: status, headers: headers, body: Data("stored".utf8),
        requestTime: sent ?? time, responseTime: time, varyValues: vary
    )
}

func request(_ fields: [(String, String)] = [], method: HTTPMethod = .get, policy: CachePolicy = .useProtocol, ttl: Int? = nil) -> HTTPRequest {
    var request = HTTPRequest(method: method, url: URL(string: "https://example.com/a")!)
    for (name, value) in fields { try! request.headers.append(name: name, value: value) }
    request.cachePolicy = policy
    request.cacheTTL = ttl
    return request
}

@Suite("CacheStrategy")
struct CacheStrategyTests {
    let t0 = Date(timeIntervalSince1970: 1_000_000)
    let privateCache = CacheStrategy()
    let sharedCache = CacheStrategy(isShared: true)

    func response(_ status: Int = 200, _ fields: [(String, String)]) -> HTTPResponse {
        var headers = HTTPFields()
        for (name, value) in fields { try! headers.append(name: name, value: value) }
        return HTTPResponse(status: HTTPStatus(code: status), headers: headers)
    }

    // MARK: Freshness lifetime

    @Test func lifetimeComesFromSMaxAgeMaxAgeExpiresOrTheHeuristic() {
        let both = entry([("Cache-Control", "max-age=60, s-maxage=600")])
        #expect(privateCache.freshnessLifetime(of: both) == 60)
        #expect(sharedCache.freshnessLifetime(of: both) == 600)
        let expires = entry([("Date", HTTPDate.format(t0)), ("Expires", HTTPDate.format(t0 + 300))])
        #expect(privateCache.freshnessLifetime(of: expires) == 300)
        #expect(privateCache.freshnessLifetime(of: entry([("Expires", "0")])) == 0)
        #expect(privateCache.freshnessLifetime(of: entry([("Date", HTTPDate.format(t0)), ("Expires", HTTPDate.format(t0 - 10))])) == 0)
        // max-age wins over Expires.
        #expect(privateCache.freshnessLifetime(of: entry([("Cache-Control", "max-age=5"), ("Expires", HTTPDate.format(t0 + 300))])) == 5)
        // Heuristic: 10% of Date − Last-Modified, for heuristically cacheable codes only.
        let modified = [("Date", HTTPDate.format(t0)), ("Last-Modified", HTTPDate.format(t0 - 10_000))]
        #expect(privateCache.freshnessLifetime(of: entry(modified)) == 1_000)
        #expect(privateCache.freshnessLifetime(of: entry(modified, status: 302)) == 0)
        #expect(CacheStrategy(heuristicFraction: 0.5).freshnessLifetime(of: entry(modified)) == 5_000)
        #expect(privateCache.freshnessLifetime(of: entry([])) == 0)
    }

    @Test func aRequestTTLOverridesTheHeaders() {
        let stored = entry([("Cache-Control", "max-age=60")])
        #expect(privateCache.freshnessLifetime(of: stored, ttl: 5) == 5)
        #expect(privateCache.freshnessLifetime(of: stored, ttl: 0) == Int.max)
    }

    // MARK: Age

    @Test func ageFollowsRFC9111Section423() {
        // Sent at t0, received 2 s later, Date 1 s before receipt, Age 10: corrected initial age
        // = max(apparent 1, 10 + delay 2) = 12; 30 s resident → 42.
        let stored = entry([("Date", HTTPDate.format(t0 + 1)), ("Age", "10")], at: t0 + 2, sentAt: t0)
        #expect(privateCache.currentAge(of: stored, now: t0 + 32) == 42)
        // A Date far in the past makes the apparent age win.
        let old = entry([("Date", HTTPDate.format(t0 - 100))], at: t0)
        #expect(privateCache.currentAge(of: old, now: t0) == 100)
        // A Date in the future never makes the age negative; an invalid Age counts as 0.
        let future = entry([("Date", HTTPDate.format(t0 + 100)), ("Age", "abc")], at: t0)
        #expect(privateCache.currentAge(of: future, now: t0 + 5) == 5)
    }

    @Test(arguments: [
        ("7200, 0", 7200), ("7200", 7200), ("0", 0), (" 30 ", 30), ("-5", 0), ("abc", 0), ("3.5", 0), ("", 0), (", 10", 0),
    ])
    func theFirstMemberOfAnAgeListCountsAndAnInvalidOneIsIgnored(value: String, age: Int) {
        // RFC 9111 §5.1: a list or a repeated field uses the first member.
        let stored = entry([("Date", HTTPDate.format(t0)), ("Age", value)], at: t0, sentAt: t0)
        #expect(privateCache.currentAge(of: stored, now: t0) == age)
    }

    @Test func aRepeatedAgeFieldUsesTheFirst() {
        let stored = entry([("Date", HTTPDate.format(t0)), ("Age", "100"), ("Age", "5")], at: t0, sentAt: t0)
        #expect(privateCache.currentAge(of: stored, now: t0) == 100)
    }

    @Test(arguments: [
        "Sun, 06 Nov 94 08:49:37 GMT", "sun, 06 nov 2094 08:49:37 gmt", "Sun, 06-Nov-2094 08:49:37 GMT", "Sun, 06 Nov 2094 08:49:37 GMT junk",
        "Sun,  06 Nov 2094 08:49:37 GMT", "Sun, 06 Nov 2094 08.49.37 GMT", "0",
    ])
    func aMalformedExpiresMeansAlreadyStale(expires: String) {
        // RFC 9111 §5.3: an invalid Expires is a time in the past.
        let stored = entry([("Date", HTTPDate.format(t0)), ("Expires", expires)], at: t0)
        #expect(privateCache.freshnessLifetime(of: stored) == 0)
        let valid = entry([("Date", HTTPDate.format(t0)), ("Expires", HTTPDate.format(t0 + 300))], at: t0)
        #expect(privateCache.freshnessLifetime(of: valid) == 300)
    }

    @Test func anInvalidDateOrLastModifiedIsIgnored() {
        // An invalid Date: the time the response arrived stands in for it.
        let badDate = entry([("Date", "Sun, 06 Nov 1994 08:49:37 gmt"), ("Expires", HTTPDate.format(t0 + 60))], at: t0)
        #expect(privateCache.freshnessLifetime(of: badDate) == 60)
        // An invalid Last-Modified gives no heuristic lifetime.
        let badModified = entry([("Date", HTTPDate.format(t0)), ("Last-Modified", "Sun, 06 Nov 94 08:49:37 GMT")], at: t0)
        #expect(privateCache.freshnessLifetime(of: badModified) == 0)
        let goodModified = entry([("Date", HTTPDate.format(t0)), ("Last-Modified", HTTPDate.format(t0 - 1000))], at: t0)
        #expect(privateCache.freshnessLifetime(of: goodModified) == 100)
    }

    // MARK: Vary and must-understand

    @Test func varyMatchesValuesWithTheWhitespaceAroundCommasRemovedAndAbsentIsNotEmpty() throws {
        let stored = CacheStrategy.varyValues(["Vary": "accept-encoding, X-Mode"], request([("Accept-Encoding", "gzip, deflate"), ("X-Mode", "")]))
        let entry = entry([("Vary", "Accept-Encoding, X-Mode")], vary: try #require(stored))
        #expect(privateCache.matchesVary(entry, request([("Accept-Encoding", "gzip,deflate"), ("x-mode", "")])))
        #expect(privateCache.matchesVary(entry, request([("Accept-Encoding", "gzip ,  deflate"), ("X-Mode", "")])))
        #expect(privateCache.matchesVary(entry, request([("Accept-Encoding", "gzip"), ("Accept-Encoding", "deflate"), ("X-Mode", "")])))
        #expect(!privateCache.matchesVary(entry, request([("Accept-Encoding", "gzip, deflate")])), "an absent X-Mode is not an empty one")
        #expect(!privateCache.matchesVary(entry, request([("Accept-Encoding", "deflate, gzip"), ("X-Mode", "")])), "order matters")
        let star = CacheStrategy.varyValues(["Vary": "*"], request())
        #expect(star == nil)
    }

    @Test func mustUnderstandStoresAnUnderstoodStatusDespiteNoStoreAndNeverAnotherOne() {
        let get = request()
        #expect(privateCache.mayStore(response(200, [("Cache-Control", "max-age=60, no-store, must-understand")]), for: get))
        #expect(privateCache.mayStore(response(404, [("Cache-Control", "max-age=60, no-store, must-understand")]), for: get))
        #expect(!privateCache.mayStore(response(299, [("Cache-Control", "max-age=60, must-understand")]), for: get))
        #expect(!privateCache.mayStore(response(200, [("Cache-Control", "max-age=60, no-store")]), for: get))
        // The request's own no-store still wins.
        #expect(
            !privateCache.mayStore(response(200, [("Cache-Control", "max-age=60, no-store, must-understand")]), for: request([("Cache-Control", "no-store")])))
    }

    // MARK: Targeted cache control (RFC 9213)

    @Test func theFirstValidTargetedFieldReplacesCacheControlAndExpires() {
        let cdn = CacheStrategy(isShared: true, targetedFields: ["Acme-Cache-Control", "CDN-Cache-Control"])
        let fields: [(String, String)] = [
            ("Date", HTTPDate.format(t0)), ("Cache-Control", "no-store"), ("Expires", HTTPDate.format(t0 + 9_999)),
            ("CDN-Cache-Control", "max-age=600"),
        ]
        // no-store in Cache-Control is not this cache's: it stores for 600 s, and Expires is ignored.
        #expect(cdn.mayStore(response(200, fields), for: request()))
        #expect(cdn.freshnessLifetime(of: entry(fields, at: t0)) == 600)
        // The more specific field wins when both are there.
        let both = fields + [("Acme-Cache-Control", "max-age=30")]
        #expect(cdn.freshnessLifetime(of: entry(both, at: t0)) == 30)
        // An invalid targeted field is ignored: the next one (or Cache-Control) applies.
        let invalid = fields + [("Acme-Cache-Control", "Max-Age=30")]
        #expect(cdn.freshnessLifetime(of: entry(invalid, at: t0)) == 600)
        // Its no-store and private apply to this cache too.
        #expect(!cdn.mayStore(response(200, [("CDN-Cache-Control", "no-store"), ("Cache-Control", "max-age=60")]), for: request()))
        #expect(!cdn.mayStore(response(200, [("CDN-Cache-Control", "private"), ("Cache-Control", "max-age=60")]), for: request()))
        // A cache that names no targeted field ignores them (the default).
        #expect(!CacheStrategy(isShared: true).mayStore(response(200, fields), for: request()))
    }

    @Test(arguments: [
        ("max-age=60", true), ("max-age=60, private", true), ("no-store", true), ("max-age=60, x=\"y\"", true), ("a=?1", true),
        ("Max-Age=60", false), ("max-age=60,,", false), ("", false), ("max age=60", false), ("max-age=6 0", false),
    ])
    func targetedFieldsMustBeStructuredDictionaries(value: String, valid: Bool) {
        #expect(CacheControl.isValidDictionary(value) == valid)
    }

    @Test func theCallersConditionsAreComparedWeaklyAndIfNoneMatchWins() {
        let stored = entry([("ETag", "W/\"v1\""), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")])
        #expect(privateCache.conditionsMatch(request([("If-None-Match", "\"v1\"")]), stored))
        #expect(privateCache.conditionsMatch(request([("If-None-Match", "\"a\", W/\"v1\"")]), stored))
        #expect(privateCache.conditionsMatch(request([("If-None-Match", "*")]), stored))
        #expect(!privateCache.conditionsMatch(request([("If-None-Match", "\"v2\"")]), stored))
        // If-None-Match present: If-Modified-Since is not looked at (RFC 9110 §13.1.3).
        #expect(!privateCache.conditionsMatch(request([("If-None-Match", "\"v2\""), ("If-Modified-Since", "Mon, 07 Nov 1994 08:49:37 GMT")]), stored))
        #expect(privateCache.conditionsMatch(request([("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")]), stored))
        #expect(!privateCache.conditionsMatch(request([("If-Modified-Since", "Sat, 05 Nov 1994 08:49:37 GMT")]), stored))
        #expect(!privateCache.conditionsMatch(request([("If-Modified-Since", "not a date")]), stored))
        #expect(!privateCache.conditionsMatch(request([("If-None-Match", "\"v1\"")]), entry([])), "nothing to compare with")
    }

    @Test(arguments: [
        ("bytes=0-99", ByteRange.one(.init(first: 0, last: 99))), ("bytes=100-", .one(.init(first: 100, last: nil))),
        ("bytes=-500", .one(.init(suffix: 500))), ("bytes=0-1,5-9", .several), ("BYTES=1-2", .one(.init(first: 1, last: 2))),
        ("items=0-9", .ignored), ("bytes=9-1", .ignored), ("bytes=a-b", .ignored), ("bytes=+1-2", .ignored), ("bytes=", .ignored),
        ("bytes=0-1,", .ignored),
    ])
    func rangeFieldsAreReadAsRFC9110Writes(value: String, range: ByteRange) {
        #expect(ByteRange.parse(value) == range)
    }

    // MARK: Storing

    @Test func whatMayBeStored() {
        let get = request()
        #expect(privateCache.mayStore(response(200, [("Cache-Control", "max-age=60")]), for: get))
        #expect(privateCache.mayStore(response(200, []), for: get), "200 is heuristically cacheable")
        #expect(privateCache.mayStore(response(404, []), for: get))
        #expect(!privateCache.mayStore(response(302, []), for: get), "302 needs explicit freshness")
        #expect(privateCache.mayStore(response(302, [("Cache-Control", "max-age=5")]), for: get))
        #expect(!privateCache.mayStore(response(206, [("Cache-Control", "max-age=5")]), for: get))
        #expect(!privateCache.mayStore(response(200, [("Cache-Control", "no-store, max-age=5")]), for: get))
        #expect(!privateCache.mayStore(response(200, [("Cache-Control", "max-age=5")]), for: request([("Cache-Control", "no-store")])))
        #expect(!privateCache.mayStore(response(200, [("Cache-Control", "max-age=5"), ("Vary", "*")]), for: get))
        #expect(!privateCache.mayStore(response(200, [("Cache-Control", "max-age=5")]), for: request(method: .post)))
        #expect(privateCache.mayStore(response(302, []), for: request(ttl: 60)) == false)
        #expect(privateCache.mayStore(response(201, []), for: request(ttl: 60)))
    }

    @Test func sharedCachesRefusePrivateAndAuthorizedResponses() {
        let privateResponse = response(200, [("Cache-Control", "private, max-age=60")])
        #expect(privateCache.mayStore(privateResponse, for: request()))
        #expect(!sharedCache.mayStore(privateResponse, for: request()))
        let authorized = request([("Authorization", "Bearer x")])
        #expect(!sharedCache.mayStore(response(200, [("Cache-Control", "max-age=60")]), for: authorized))
        #expect(sharedCache.mayStore(response(200, [("Cache-Control", "public, max-age=60")]), for: authorized))
        #expect(sharedCache.mayStore(response(200, [("Cache-Control", "s-maxage=60")]), for: authorized))
        #expect(privateCache.mayStore(response(200, [("Cache-Control", "max-age=60")]), for: authorized))
    }

    @Test func hopByHopAndConnectionNamedFieldsAreNotStored() {
        let fields = privateCache.storedFields(
            of: response(
                200,
                [
                    ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"), ("ETag", "\"a\""),
                ]))
        #expect(fields.map(\.name) == ["ETag"])
        let qualified = response(200, [("Cache-Control", #"private="X-User""#), ("X-User", "alice"), ("ETag", "\"a\"")])
        #expect(sharedCache.storedFields(of: qualified).contains("X-User") == false)
        #expect(privateCache.storedFields(of: qualified).contains("X-User"))
    }

    // MARK: Deciding

    @Test func freshIsServedAndStaleIsValidated() {
        let stored = entry([("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("Last-Modified", HTTPDate.format(t0 - 50))])
        #expect(privateCache.decide(request(), stored: stored, now: t0 + 59) == .serve(stored, age: 59))
        let conditions = privateCache.conditionalFields(for: stored)
        #expect(conditions["If-None-Match"] == "\"v1\"")
        #expect(conditions["If-Modified-Since"] == HTTPDate.format(t0 - 50))
        #expect(privateCache.decide(request(), stored: stored, now: t0 + 60) == .validate(stored, conditions: conditions))
        // Without validators a stale entry is simply fetched again.
        #expect(privateCache.decide(request(), stored: entry([("Cache-Control", "max-age=1")]), now: t0 + 5) == .fetch)
        #expect(privateCache.decide(request(), stored: nil, now: t0) == .fetch)
    }

    @Test func requestDirectivesTightenOrLoosen() {
        let stored = entry([("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        let validate = CacheStrategy.Decision.validate(stored, conditions: ["If-None-Match": "\"v1\""])
        #expect(privateCache.decide(request([("Cache-Control", "no-cache")]), stored: stored, now: t0 + 1) == validate)
        #expect(privateCache.decide(request([("Pragma", "no-cache")]), stored: stored, now: t0 + 1) == validate)
        #expect(privateCache.decide(request([("Cache-Control", "max-age=10")]), stored: stored, now: t0 + 11) == validate)
        #expect(privateCache.decide(request([("Cache-Control", "max-age=10")]), stored: stored, now: t0 + 10) == .serve(stored, age: 10))
        #expect(privateCache.decide(request([("Cache-Control", "min-fresh=30")]), stored: stored, now: t0 + 31) == validate)
        #expect(privateCache.decide(request([("Cache-Control", "min-fresh=30")]), stored: stored, now: t0 + 30) == .serve(stored, age: 30))
        #expect(privateCache.decide(request([("Cache-Control", "max-stale=20")]), stored: stored, now: t0 + 80) == .serve(stored, age: 80))
        #expect(privateCache.decide(request([("Cache-Control", "max-stale=20")]), stored: stored, now: t0 + 81) == validate)
        #expect(privateCache.decide(request([("Cache-Control", "max-stale")]), stored: stored, now: t0 + 9_999) == .serve(stored, age: 9_999))
        #expect(privateCache.decide(request([("Cache-Control", "no-store")]), stored: stored, now: t0 + 1) == .fetch)
    }

    @Test func responseDirectivesForbidServingStale() {
        let mustRevalidate = entry([("Cache-Control", "max-age=60, must-revalidate"), ("ETag", "\"v1\"")])
        let validate = CacheStrategy.Decision.validate(mustRevalidate, conditions: ["If-None-Match": "\"v1\""])
        #expect(privateCache.decide(request([("Cache-Control", "max-stale")]), stored: mustRevalidate, now: t0 + 61) == validate)
        let proxy = entry([("Cache-Control", "max-age=60, proxy-revalidate"), ("ETag", "\"v1\"")])
        #expect(privateCache.decide(request([("Cache-Control", "max-stale")]), stored: proxy, now: t0 + 61) == .serve(proxy, age: 61))
        #expect(
            sharedCache.decide(request([("Cache-Control", "max-stale")]), stored: proxy, now: t0 + 61)
                == .validate(proxy, conditions: ["If-None-Match": "\"v1\""]))
        let noCache = entry([("Cache-Control", "max-age=60, no-cache"), ("ETag", "\"v1\"")])
        #expect(privateCache.decide(request(), stored: noCache, now: t0) == .validate(noCache, conditions: ["If-None-Match": "\"v1\""]))
    }

    @Test func immutableSkipsRevalidationWhileFresh() {
        let stored = entry([("Cache-Control", "max-age=60, immutable"), ("ETag", "\"v1\"")])
        #expect(privateCache.decide(request([("Cache-Control", "no-cache")]), stored: stored, now: t0 + 5) == .serve(stored, age: 5))
        #expect(privateCache.decide(request([("Cache-Control", "max-age=0")]), stored: stored, now: t0 + 5) == .serve(stored, age: 5))
        #expect(privateCache.decide(request(), stored: stored, now: t0 + 61) == .validate(stored, conditions: ["If-None-Match": "\"v1\""]))
    }

    @Test func staleWhileRevalidateServesInsideItsWindow() {
        let stored = entry([("Cache-Control", "max-age=60, stale-while-revalidate=30"), ("ETag", "\"v1\"")])
        #expect(privateCache.decide(request(), stored: stored, now: t0 + 90) == .serveStaleAndRevalidate(stored, age: 90))
        #expect(privateCache.decide(request(), stored: stored, now: t0 + 91) == .validate(stored, conditions: ["If-None-Match": "\"v1\""]))
        let both = entry([("Cache-Control", "max-age=60, stale-while-revalidate=30, must-revalidate"), ("ETag", "\"v1\"")])
        #expect(privateCache.decide(request(), stored: both, now: t0 + 70) == .validate(both, conditions: ["If-None-Match": "\"v1\""]))
    }

    @Test func onlyIfCachedAnswersFromTheCacheOr504() {
        let onlyIfCached = request([("Cache-Control", "only-if-cached")])
        #expect(privateCache.decide(onlyIfCached, stored: nil, now: t0) == .gatewayTimeout)
        let stored = entry([("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        #expect(privateCache.decide(onlyIfCached, stored: stored, now: t0 + 1) == .serve(stored, age: 1))
        #expect(privateCache.decide(onlyIfCached, stored: stored, now: t0 + 61) == .gatewayTimeout)
        #expect(privateCache.decide(request([("Cache-Control", "only-if-cached, max-stale")]), stored: stored, now: t0 + 61) == .serve(stored, age: 61))
    }

    @Test func policiesOverrideTheProtocol() {
        let stale = entry([("Cache-Control", "max-age=1"), ("ETag", "\"v1\"")])
        #expect(privateCache.decide(request(policy: .reloadIgnoringCache), stored: stale, now: t0) == .fetch)
        #expect(privateCache.decide(request(policy: .returnCacheElseLoad), stored: stale, now: t0 + 500) == .serve(stale, age: 500))
        #expect(privateCache.decide(request(policy: .returnCacheElseLoad), stored: nil, now: t0) == .fetch)
        #expect(privateCache.decide(request(policy: .returnCacheDontLoad), stored: stale, now: t0 + 500) == .serve(stale, age: 500))
        #expect(privateCache.decide(request(policy: .returnCacheDontLoad), stored: nil, now: t0) == .miss)
        #expect(privateCache.decide(request(ttl: 1_000), stored: stale, now: t0 + 500) == .serve(stale, age: 500))
        #expect(privateCache.decide(request(ttl: 0), stored: stale, now: t0 + 99_999) == .serve(stale, age: 99_999))
    }

    @Test func varySelectsTheStoredResponse() {
        let stored = entry(
            [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language, accept")],
            vary: ["accept-language": "en", "accept": nil])
        #expect(privateCache.decide(request([("Accept-Language", "en")]), stored: stored, now: t0) == .serve(stored, age: 0))
        #expect(privateCache.decide(request([("Accept-Language", "fr")]), stored: stored, now: t0) == .fetch)
        #expect(privateCache.decide(request([("Accept-Language", "en"), ("Accept", "*/*")]), stored: stored, now: t0) == .fetch)
        #expect(privateCache.decide(request(), stored: stored, now: t0) == .fetch)
        let star = entry([("Cache-Control", "max-age=60"), ("Vary", "*")])
        #expect(privateCache.decide(request(), stored: star, now: t0) == .fetch)
        #expect(CacheStrategy.varyValues(["Vary": "Accept"], request([("Accept", "a/b,   c/d")])) == ["accept": "a/b,c/d"])
    }

    @Test func entityTagsCompareWeakly() {
        #expect(CacheStrategy.weakCompare("\"a\"", "W/\"a\""))
        #expect(CacheStrategy.weakCompare("W/\"a\"", "W/\"a\""))
        #expect(CacheStrategy.weakCompare("abc", "\"abc\""))
        #expect(!CacheStrategy.weakCompare("\"a\"", "\"b\""))
    }

    @Test func a304UpdatesTheStoredFields() {
        let stored = entry([("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("X-Old", "1"), ("Content-Length", "6")])
        let notModified = response(304, [("Cache-Control", "max-age=120"), ("Content-Length", "0"), ("X-New", "2"), ("Connection", "close")])
        let updated = privateCache.updated(stored, with: notModified, requestTime: t0 + 100, responseTime: t0 + 101)
        #expect(updated.headers["Cache-Control"] == "max-age=120")
        #expect(updated.headers["Content-Length"] == "6")
        #expect(updated.headers["X-Old"] == "1" && updated.headers["X-New"] == "2")
        #expect(!updated.headers.contains("Connection"))
        #expect(updated.responseTime == t0 + 101 && updated.requestTime == t0 + 100)
        #expect(updated.body == stored.body)
        #expect(privateCache.notModified(response(304, [("ETag", "W/\"v1\"")]), matches: stored))
        #expect(!privateCache.notModified(response(304, [("ETag", "\"v2\"")]), matches: stored))
        #expect(privateCache.notModified(response(304, []), matches: stored))
    }
}
