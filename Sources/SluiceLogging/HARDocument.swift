import Foundation

/// HAR 1.2 (the W3C draft browsers' devtools read and write), as much of it as Sluice fills in.
/// Field names follow the format exactly. Fields replay does not need are optional, so HAR files
/// exported by browsers and other tools load too; the recorder always fills them in.
struct HARDocument: Codable {
    var log: Log

    struct Log: Codable {
        var version = "1.2"
        var creator: Creator
        var pages: [Page]? = []
        var entries: [Entry]
    }

    struct Creator: Codable {
        var name: String
        var version: String
    }

    struct Page: Codable {}

    struct Entry: Codable {
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache: Cache? = Cache()
        var timings: Timings?
        var serverIPAddress: String?
        var comment: String?
    }

    struct NameValue: Codable, Equatable {
        var name: String
        var value: String
    }

    struct Request: Codable {
        var method: String
        var url: String
        var httpVersion: String
        var cookies: [NameValue]? = []
        var headers: [NameValue]
        var queryString: [NameValue]?
        var postData: PostData?
        var headersSize: Int? = -1
        var bodySize: Int?
    }

    struct PostData: Codable {
        var mimeType: String
        var text: String
        /// Not in HAR 1.2's `postData`, but read by Sluice: `"base64"` when `text` is base64.
        var encoding: String?
    }

    struct Response: Codable {
        var status: Int
        var statusText: String
        var httpVersion: String
        var cookies: [NameValue]? = []
        var headers: [NameValue]
        var content: Content
        var redirectURL: String?
        var headersSize: Int? = -1
        var bodySize: Int?
    }

    struct Content: Codable {
        var size: Int
        var mimeType: String
        var text: String?
        var encoding: String?
    }

    struct Cache: Codable {}

    struct Timings: Codable {
        var blocked: Double = -1
        var dns: Double = -1
        var connect: Double = -1
        var send: Double = 0
        var wait: Double
        var receive: Double
        var ssl: Double = -1
    }
}
