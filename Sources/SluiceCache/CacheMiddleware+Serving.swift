import Foundation
import Sluice

// Answers made from a stored copy: with its age, cut to a range, or a 304.
extension CacheMiddleware {
    func served(
        _ entry: CachedResponse, age: Int, for request: HTTPRequest, source: ResponseSource, directives: CacheControl? = nil
    ) -> HTTPResponse {
        var response = entry.response(for: request)
        response.source = source
        response.attachments[CacheResultKey.self] = source == .revalidated ? "revalidated" : "hit"
        try? response.headers.set(name: "Age", value: String(age))
        if source == .cache {
            // Fields a qualified no-cache names are not served without revalidation.
            for name in (directives ?? strategy.directives(of: entry.headers)).noCacheFields { response.headers.remove(name: name) }
        }
        if request.method == .head { response.body = Data() }
        return response
    }

    /// `response`, the whole stored representation, cut to the request's single range when it asked
    /// for one and its `If-Range` holds; as it is otherwise.
    static func answering(_ range: ByteRange?, of request: HTTPRequest, _ stored: CachedResponse, with response: HTTPResponse) -> HTTPResponse {
        guard case .one(let wanted)? = range, ifRangeHolds(request, stored) else { return response }
        return partial(response, wanted)
    }

    /// `response` cut to `range` (RFC 9110 §14.4, §15.3.7): a 206 with its `Content-Range`, or a
    /// 416 with `Content-Range: bytes */length` when the range starts past the end.
    static func partial(_ response: HTTPResponse, _ range: ByteRange.Bounds) -> HTTPResponse {
        let length = response.body.count
        var partial = response
        partial.headers.remove(name: "Content-Length")
        guard let (first, last) = range.resolved(length: length) else {
            partial.status = HTTPStatus(code: 416)
            partial.body = Data()
            try? partial.headers.set(name: "Content-Range", value: "bytes */\(length)")
            return partial
        }
        partial.status = HTTPStatus(code: 206)
        partial.body = response.body.subdata(in: (response.body.startIndex + first)..<(response.body.startIndex + last + 1))
        try? partial.headers.set(name: "Content-Range", value: "bytes \(first)-\(last)/\(length)")
        return partial
    }

    /// Whether a request's `If-Range` (if any) holds for `stored`, so its range applies (RFC 9110
    /// §13.1.5): a strong entity tag equal to the stored `ETag`, or a date equal to its
    /// `Last-Modified`. When it does not, the whole response is the answer.
    static func ifRangeHolds(_ request: HTTPRequest, _ stored: CachedResponse) -> Bool {
        guard let condition = request.headers["If-Range"]?.trimmingOptionalWhitespace() else { return true }
        if condition.hasPrefix("\"") { return stored.headers["ETag"] == condition }
        guard let date = HTTPDate.parse(condition), let modified = stored.headers["Last-Modified"].flatMap(HTTPDate.parse) else { return false }
        return date == modified
    }

    /// A 304 for `request` from `stored`: the fields RFC 9110 §15.4.5 lists (validators,
    /// `Cache-Control`, `Content-Location`, `Date`, `Expires`, `Vary`) and `Age`, no body.
    func notModified(_ stored: CachedResponse, age: Int, for request: HTTPRequest) -> HTTPResponse {
        var headers = HTTPFields()
        for name in ["Cache-Control", "Content-Location", "Date", "ETag", "Expires", "Last-Modified", "Vary"] {
            for value in stored.headers.values(for: name) { try? headers.append(name: name, value: value) }
        }
        try? headers.set(name: "Age", value: String(age))
        var response = HTTPResponse(status: HTTPStatus(code: 304), headers: headers)
        response.request = request
        response.source = .cache
        response.attachments[CacheResultKey.self] = "hit"
        return response
    }
}
