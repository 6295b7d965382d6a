// The first hour with Sluice, against httpbin: a client in three lines, the verbs, typed
// decoding, a refused call, and a body read as it arrives. Written from the README alone.
//
//     swift run --package-path Examples/FirstHour FirstHour http://127.0.0.1:8080
import Foundation
import Sluice
import SluiceStandard

struct Echo: Decodable {
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

guard CommandLine.arguments.count == 2, let base = URL(string: CommandLine.arguments[1]) else {
    print("usage: FirstHour HTTPBIN_URL")
    exit(2)
}

let cache = FileManager.default.temporaryDirectory.appendingPathComponent("first-hour-\(UUID().uuidString).sqlite").path
defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cache + suffix) } }

// A client in three lines.
let client = try Client.standard(baseURL: base, cache: .sqlite(cache), auth: .bearer { "first-hour-token" })

// GET with a query, decoded.
let echo = try await client.get("get", query: ["q": "café & co", "page": 2], as: Echo.self)
check(echo.args == ["q": "café & co", "page": "2"], "a GET with a query, decoded")
check(echo.headers["Authorization"] == "Bearer first-hour-token", "the bearer token was sent")

// POST, PUT, PATCH and DELETE with JSON, decoded; the body arrives as written (not compressed).
let note = Note(title: "Hello", tags: ["a", "b"])
check(try await client.post("post", json: note, as: Echo.self).json == note, "POST with JSON")
check(try await client.put("put", json: note, as: Echo.self).json == note, "PUT with JSON")
check(try await client.patch("patch", json: note, as: Echo.self).json == note, "PATCH with JSON")
check(try await client.delete("delete", json: note, as: Echo.self).json == note, "DELETE with JSON")

// A refused call is a typed error that says what happened.
do {
    _ = try await client.get("status/418", as: Echo.self)
    check(false, "a 418 was refused")
} catch let error as SluiceError {
    check(error.code == .unacceptableStatus, "a 418 is .unacceptableStatus: \(error.message.prefix(60))…")
}

// A body read as it arrives.
let streamed = try await client.stream(try client.makeRequest(.get, "stream-bytes/100000?chunk_size=4096"))
var bytes = 0
for try await chunk in streamed.bodyStream! { bytes += chunk.count }
check(streamed.status.isSuccess && bytes == 100_000, "100,000 bytes read as they arrived")

// The cache answers a cacheable GET the second time.
_ = try await client.get("cache/60")
let again = try await client.get("cache/60")
check(again.source == .cache, "the second GET of a cacheable answer came from the cache")
print("first hour: done")
