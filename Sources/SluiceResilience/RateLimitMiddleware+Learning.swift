import Foundation
import Sluice

extension RateLimitMiddleware {
    /// How long the server asked callers to hold off, read from `response`, or `nil`:
    ///
    /// - a 429 or 503 with `Retry-After`, in seconds or as an HTTP date;
    /// - a quota with none left: `RateLimit: "name";r=0;t=30` (draft-ietf-httpapi-ratelimit-headers,
    ///   07 and later), `RateLimit: limit=100, remaining=0, reset=30` and the
    ///   `RateLimit-Remaining`/`RateLimit-Reset` pair (its earlier drafts), or
    ///   `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (GitHub's and others': seconds from
    ///   now, or a Unix time when it is past 1,000,000,000).
    ///
    /// A value that is not a number, or negative, is ignored; the longest is taken when several
    /// say. `now` is the wall clock that an HTTP date and a Unix time are read against.
    package static func pause(in response: HTTPResponse, now: Date) -> Duration? {
        var seconds: [Double] = []
        let headers = response.headers
        if [429, 503].contains(response.status.code), let value = headers["Retry-After"] {
            if let delay = Double(value.trimmingCharacters(in: .whitespaces)), delay >= 0 {
                seconds.append(delay)
            } else if let date = HTTPDate.parse(value) {
                seconds.append(max(0, date.timeIntervalSince(now)))
            }
        }
        if let field = headers["RateLimit"] {
            let parameters = Self.parameters(field)
            if parameters["r"] == 0 || parameters["remaining"] == 0, let reset = parameters["t"] ?? parameters["reset"] {
                seconds.append(reset)
            }
        }
        for prefix in ["RateLimit-", "X-RateLimit-"] {
            guard let remaining = headers[prefix + "Remaining"].flatMap(Self.number), remaining == 0,
                let reset = headers[prefix + "Reset"].flatMap(Self.number)
            else { continue }
            seconds.append(reset > 1_000_000_000 ? max(0, reset - now.timeIntervalSince1970) : reset)
        }
        guard let longest = seconds.filter({ $0 >= 0 && $0.isFinite }).max() else { return nil }
        return Duration.clampedSeconds(longest).clampedWait  // at most 100 years: the longest wait there is
    }

    /// The strictest quota the server states in `RateLimit-Policy`, or `nil`: each member's `q`
    /// calls per `w` seconds (`"default";q=100;w=60`, draft 08 and later) or its leading integer
    /// with `w` (`100;w=60`, earlier drafts). A member without both, or with a count or window
    /// that is not a positive number, is skipped.
    package static func policy(in response: HTTPResponse) -> (quota: Int, window: Duration)? {
        guard let field = response.headers["RateLimit-Policy"] else { return nil }
        var strictest: (quota: Int, window: Duration, rate: Double)?
        for member in field.split(separator: ",") {
            let parts = member.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            var quota = parts.first.flatMap { Double($0) }
            var window: Double?
            for part in parts.dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, let value = number(String(pair[1])) else { continue }
                switch pair[0].lowercased() {
                case "q": quota = value
                case "w": window = value
                default: break
                }
            }
            guard let quota, let window, quota >= 1, quota.isFinite, window > 0 else { continue }
            let rate = quota / window
            if rate < strictest?.rate ?? .infinity {
                strictest = (Int(clamping: quota), Duration.clampedSeconds(window).clampedWait, rate)
            }
        }
        return strictest.map { ($0.quota, $0.window) }
    }

    /// A field's numeric parameters, whatever the draft: `"default";r=0;t=30` and
    /// `limit=100, remaining=0, reset=30` alike (the first list member's, then the rest's).
    private static func parameters(_ field: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for part in field.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = number(String(pair[1])) else { continue }
            let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            if found[name] == nil { found[name] = value }
        }
        return found
    }

    private static func number(_ text: String) -> Double? {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else { return nil }
        return value
    }
}
