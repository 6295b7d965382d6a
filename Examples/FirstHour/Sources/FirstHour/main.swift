// The first hour with Sluice, against httpbin: the README's first block as it is written (only
// `base` comes from the command line; .ci/check-readme-samples checks the lines are the README's),
// then the verbs, typed decoding, a refused call, a timeout, and a body read as it arrives.
// Written from the README alone.
//
//     swift run --package-path Examples/FirstHour FirstHour http://127.0.0.1:8080
import Foundation
import Sluice
import SluiceStandard

struct Reply: Decodable {
    let args: [String: String]?
    let json: Note?
    let headers: [String: String]
}

struct Note: Codable, Equatable {
    let title: String
    let tags: [String]
}

func check(_ condition: Bool, _ what: String) {
    print((condition ? "ok   " : "FAIL ") + what)
    if !condition { exit(1) }
}

guard CommandLine.arguments.count == 2, let httpbin = URL(string: CommandLine.arguments[1]) else {
    print("usage: FirstHour HTTPBIN_URL")
    exit(2)
}

// The user's cache directory, for this run only: the README's client keeps its cache there.
let cacheHome = FileManager.default.temporaryDirectory.appendingPathComponent("first-hour-\(UUID().uuidString)").path
setenv("XDG_CACHE_HOME", cacheHome, 1)
defer { try? FileManager.default.removeItem(atPath: cacheHome) }

// The README's first block, as written.
struct Echo: Decodable { let url: String; let headers: [String: String] }  // what httpbin answers

let base = httpbin.appendingPathComponent("anything/")
let client = try Client.standard(baseURL: base, cache: .userCache(app: "my-app"), auth: .bearer { "my-token" })
let echo = try await client.get("users/42", as: Echo.self)
print(echo.url, echo.headers["Authorization"] ?? "no token")  // …/anything/users/42 Bearer my-token
check(echo.url.hasSuffix("/anything/users/42") && echo.headers["Authorization"] == "Bearer my-token", "the README's first block ran")
check(FileManager.default.fileExists(atPath: cacheHome + "/my-app/http.sqlite"), "its cache is in the user's cache directory")

// The rest against httpbin's root, with a token of its own.
let api = try Client.standard(baseURL: httpbin, cache: .userCache(app: "first-hour"), auth: .bearer { "first-hour-token" })

// GET with a query, decoded.
let query = try await api.get("get", query: ["q": "café & co", "page": 2], as: Reply.self)
check(query.args == ["q": "café & co", "page": "2"], "a GET with a query, decoded")
check(query.headers["Authorization"] == "Bearer first-hour-token", "the bearer token was sent")

// POST, PUT, PATCH and DELETE with JSON, decoded; the body arrives as written (not compressed).
let note = Note(title: "Hello", tags: ["a", "b"])
check(try await api.post("post", json: note, as: Reply.self).json == note, "POST with JSON")
check(try await api.put("put", json: note, as: Reply.self).json == note, "PUT with JSON")
check(try await api.patch("patch", json: note, as: Reply.self).json == note, "PATCH with JSON")
check(try await api.delete("delete", json: note, as: Reply.self).json == note, "DELETE with JSON")

// A refused call is a typed error that says what happened.
do {
    _ = try await api.get("status/418", as: Reply.self)
    check(false, "a 418 was refused")
} catch let error as SluiceError {
    check(error.code == .unacceptableStatus, "a 418 is .unacceptableStatus: \(error.message.prefix(60))…")
}

// A body read as it arrives.
let streamed = try await api.stream(try api.makeRequest(.get, "stream-bytes/100000?chunk_size=4096"))
var bytes = 0
for try await chunk in streamed.bodyStream! { bytes += chunk.count }
check(streamed.status.isSuccess && bytes == 100_000, "100,000 bytes read as they arrived")

// The cache answers a cacheable GET the second time. httpbin's answer echoes the request's
// headers, so the answer to a call with the token holds the token: that one is never stored (no
// cache file holds a secret), and a client without one is answered from the cache.
_ = try await api.get("cache/60")
check(try await api.get("cache/60").source == .network, "an answer that echoes the token is not kept in the cache")
let open = try Client.standard(baseURL: httpbin, cache: .userCache(app: "first-hour-open"))
_ = try await open.get("cache/60")
let again = try await open.get("cache/60")
check(again.source == .cache, "the second GET of a cacheable answer came from the cache")
// A per-call timeout ends a slow call with .timedOut.
do {
    _ = try await api.get("delay/5", timeout: .milliseconds(500))
    check(false, "a call past its timeout was refused")
} catch let error as SluiceError {
    check(error.code == .timedOut, "a call past its timeout: \(error.message.prefix(60))…")
}
print("first hour: done")
