// A client that swift-openapi-generator wrote from openapi.yaml (httpbin's operations), sent
// through a Sluice Client: the cache, retry and debug logging run for every generated call.
//
//     swift run --package-path Examples/OpenAPIClient OpenAPIClient http://127.0.0.1:8080
//
// `make test` runs it against httpbin; it exits non-zero when a claim below does not hold.
import Foundation
import HTTPBinAPI
import OpenAPIRuntime
import Sluice
import SluiceCache
import SluiceCurl
import SluiceLogging
import SluiceOpenAPI
import SluiceRetry

guard CommandLine.arguments.count == 2, let httpbin = URL(string: CommandLine.arguments[1]) else {
    print("usage: OpenAPIClient HTTPBIN-URL")
    exit(2)
}

func check(_ claim: Bool, _ what: String) {
    guard claim else {
        print("error: \(what)")
        exit(1)
    }
    print("ok: \(what)")
}

// The Sluice client: a base URL, an in-memory cache, retry, and a log line per call.
var builder = Sluice.Client.Builder(transport: CurlTransport())
builder.configuration.baseURL = httpbin
builder.add(CacheMiddleware(store: MemoryCacheStore()))
builder.add(RetryMiddleware())
builder.add(LoggingMiddleware(level: .basic, sink: .standardError))

// The generated client over it. openapi.yaml's server URL is "/", so it is joined to the Sluice
// client's base URL.
let api = HTTPBinAPI.Client(serverURL: try Servers.Server1.url(), transport: OpenAPITransport(client: builder.build()))

let echo = try await api.getAnything(query: .init(q: "sluice")).ok.body.json
check(echo.args.additionalProperties["q"] == "sluice", "getAnything sent q=sluice")

let posted = try await api.postNote(body: .json(.init(title: "Hello", draft: true))).ok.body.json
check(posted.json.title == "Hello" && posted.json.draft == true, "postNote sent the note as JSON")

let first = try await api.getCacheable(path: .init(seconds: 60)).ok.body.json
let second = try await api.getCacheable(path: .init(seconds: 60)).ok.body.json
check(first == second, "the second getCacheable came from Sluice's cache (the same echo)")

let bytes = try await api.getBytes(path: .init(count: 70_000)).ok.body.binary
check(bytes.length == .known(70_000), "getBytes streamed a body of known length")
check(try await Data(collecting: bytes, upTo: 1 << 20).count == 70_000, "… and all 70,000 bytes arrived")

if case .default(let status, let answer) = try await api.getProblem(
    query: .init(contentType: "application/problem+json", title: "Out of stock", detail: "No pens left"))
{
    let problem = try answer.body.applicationProblemJson
    check(status == 200 && problem.title == "Out of stock", "getProblem decoded an application/problem+json answer")
} else {
    check(false, "getProblem decoded an application/problem+json answer")
}

// A failure reaches the caller inside the generated client's ClientError, with Sluice's error kept.
let down = HTTPBinAPI.Client(serverURL: URL(string: "http://127.0.0.1:1")!, transport: OpenAPITransport(client: builder.build()))
do {
    _ = try await down.getAnything()
    check(false, "a call to a closed port failed")
} catch let error as ClientError {
    check((error.underlyingError as? SluiceError)?.code == .cannotConnect, "a closed port failed with SluiceError .cannotConnect inside ClientError")
}
