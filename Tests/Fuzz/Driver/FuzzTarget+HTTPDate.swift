import Foundation
import Sluice
import SluiceRetry

extension FuzzTarget {
    /// `HTTPDate.parse` and `DefaultRetryPolicy.retryAfter`: a parsed date is whole seconds and
    /// survives `format` then `parse`; a Retry-After delay is nil or within 0...cap.
    static let httpDate = FuzzTarget(name: "http-date", summary: "the HTTP-date and Retry-After parsers") { data in
        let text = FuzzTarget.text(data)
        if let date = HTTPDate.parse(text) {
            let seconds = date.timeIntervalSince1970
            require(seconds == seconds.rounded(), "\(String(reflecting: text)) parsed to a fraction of a second")
            let formatted = HTTPDate.format(date)
            require(HTTPDate.parse(formatted) == date, "\(formatted) does not parse back to \(date)")
        }
        let cap = Duration.seconds(6 * 3_600)
        let policy = DefaultRetryPolicy(configuration: .init(retryAfterCap: cap, clock: { Date(timeIntervalSince1970: 1_700_000_000) }))
        if let delay = policy.retryAfter(text) {
            require(delay >= .zero && delay <= cap, "Retry-After \(String(reflecting: text)) gave \(delay)")
        }
    }
}
