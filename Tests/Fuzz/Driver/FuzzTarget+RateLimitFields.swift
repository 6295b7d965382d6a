import Foundation
import Sluice
import SluiceResilience

extension FuzzTarget {
    /// The fields a rate limit learns from (`Retry-After`, `RateLimit`, `RateLimit-Policy`,
    /// `RateLimit-Remaining`/`-Reset`, `X-RateLimit-*`), one `Name: value` a line, on a 429, a
    /// 503 and a 200: a pause is never negative nor past 100 years, a policy's quota is at least 1
    /// and its window within 100 years, and the limit kept from it never traps.
    static let rateLimitFields = FuzzTarget(
        name: "rate-limit-fields", summary: "rate-limit fields a server sends (RateLimit, RateLimit-Policy, Retry-After, X-RateLimit-*)"
    ) { data in
        var fields = HTTPFields()
        for line in text(data).split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            try? fields.append(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        }
        let century = Duration.seconds(3_155_760_000)
        for status in [429, 503, 200] {
            let response = HTTPResponse(status: HTTPStatus(code: status), headers: fields)
            if let pause = RateLimitMiddleware.pause(in: response, now: Date(timeIntervalSince1970: 1_800_000_000)) {
                require(pause >= .zero && pause <= century, "a pause of \(pause)")
            }
            if let policy = RateLimitMiddleware.policy(in: response) {
                require(policy.quota >= 1 && policy.window > .zero && policy.window <= century, "a policy of \(policy)")
                let limit = RateLimit(requests: policy.quota - max(1, policy.quota / 10) + 1, per: policy.window, burst: max(1, policy.quota / 10))
                require(limit.requests >= 1 && limit.interval >= .zero, "a limit of \(limit)")
            }
        }
    }
}
