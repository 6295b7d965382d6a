// `make demo`: a guided tour of Sluice's default pipeline against a MockWebServer on this
// machine, through real libcurl. No network is needed: curl reaches "api.tour.example" through
// the mock server, set as its proxy, so the reachability gate sees a real host name.
//
// Run it in a terminal to see the HUD spinner; set SLUICE_LOG=headers to see the toggle at work.
import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceGzip
import SluiceHUD
import SluiceLogging
import SluiceReachability
import SluiceRetry
import SluiceSigning
import SluiceTesting
import Synchronization

// MARK: A scripted API

/// What the mock API has seen, for the narration.
final class Seen: Sendable {
    let flakyCalls = Atomic<Int>(0)
    let lastRequest = Mutex<MockWebServer.RecordedRequest?>(nil)
}

let seen = Seen()
let articles = Data(#"{"articles":[{"id":1,"title":"Sluice 0.1"},{"id":2,"title":"A tour"}]}"#.utf8)
let report = Data(String(repeating: #"{"day":"mon","visits":1200},"#, count: 60).utf8)
let server = try MockWebServer()
server.setHandler { request in
    seen.lastRequest.withLock { $0 = request }
    let path = URL(string: request.target)?.path ?? request.target
    switch path {
    case "/articles":
        return .init(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=60"), ("ETag", "\"a1\"")], body: articles)
    case "/profile":
        if request.header("If-None-Match") == "\"p1\"" { return .init(status: 304, headers: [("ETag", "\"p1\"")]) }
        return .init(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-cache"), ("ETag", "\"p1\"")],
            body: Data(#"{"name":"Ada"}"#.utf8))
    case "/flaky":
        if seen.flakyCalls.add(1, ordering: .relaxed).newValue == 1 {
            return .init(status: 503, headers: [("Retry-After", "1")], body: Data("busy".utf8))
        }
        return .init(status: 200, headers: [("Content-Type", "text/plain")], body: Data("fine now".utf8))
    case "/upload":
        let summary = #"{"received":\#(request.body.count),"encoding":"\#(request.header("Content-Encoding") ?? "identity")"}"#
        return .init(status: 200, headers: [("Content-Type", "application/json")], body: Data(summary.utf8))
    case "/report":
        let packed = (try? GzipCodec.compress(report)) ?? report
        return .init(status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body: packed)
    case "/slow":
        return MockWebServer.Response(status: 200, headers: [("Content-Type", "text/plain")], body: Data("worth the wait".utf8))
            .with(headersDelay: .milliseconds(1_600))
    default:
        return .init(status: 404, headers: [("Content-Type", "text/plain")], body: Data("no such page".utf8))
    }
}

/// A network switch for the tour: the gate asks it whether the machine is online.
final class NetworkSwitch: ReachabilityMonitor {
    private let current = Mutex(ReachabilityStatus.reachable(.wired))
    var status: ReachabilityStatus { current.withLock { $0 } }
    var statusUpdates: AsyncStream<ReachabilityStatus> { AsyncStream { $0.yield(status) } }
    func set(_ status: ReachabilityStatus) { current.withLock { $0 = status } }
}

/// Whole milliseconds, for printing.
func milliseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
}

// MARK: The pipeline

func say(_ text: String) { print(text) }

/// The tour checks what it narrates: a claim that does not hold stops it with exit code 1.
func check(_ condition: Bool, _ claim: String) {
    guard condition else {
        FileHandle.standardError.write(Data("tour: expected \(claim)\n".utf8))
        exit(1)
    }
}
func step(_ number: Int, _ title: String) { print("\n\(number). \(title)") }

var transportConfiguration = CurlTransport.Configuration()
transportConfiguration.proxy = server.baseURL.absoluteString
let transport = CurlTransport(configuration: transportConfiguration)
let network = NetworkSwitch()

var builder = Client.Builder(transport: transport, configuration: .init(baseURL: URL(string: "http://api.tour.example")))
builder.add(HUDMiddleware(presenter: TerminalHUD()))
builder.add(LoggingMiddleware(level: .basic, sink: .closure { print("   log │ " + $0) }))
builder.add(CacheMiddleware(store: MemoryCacheStore()))
builder.add(RetryMiddleware())
builder.add(ReachabilityGateMiddleware(monitor: network))
builder.add(GzipMiddleware())
builder.add(SigningMiddleware(signer: HMACParameterSigner(configuration: .init(key: Data("tour-secret".utf8)))))
let client = builder.build()

say("Sluice tour: one client, the default order, a mock API on 127.0.0.1:\(server.port) through real libcurl.")
say("   chain │ " + builder.middlewares.map { "\(type(of: $0))" }.joined(separator: " → ") + " → CurlTransport")

step(1, "A first fetch goes to the network; the same fetch again is a cache hit.")
let first = try await client.get("articles")
say("   first │ \(first.status), source: \(first.source)")
let requestsBefore = server.requests.count
let again = try await client.get("articles")
say("   again │ \(again.status), source: \(again.source) (\(server.requests.count - requestsBefore) requests reached the server)")
check(first.source == .network && again.source == .cache && server.requests.count == requestsBefore, "a network fetch, then a cache hit")

step(2, "A no-cache resource is revalidated: the cache sends If-None-Match and the server answers 304.")
_ = try await client.get("profile")
let revalidated = try await client.get("profile")
say(
    "   again │ \(revalidated.status), source: \(revalidated.source); the server saw If-None-Match: "
        + (seen.lastRequest.withLock { $0?.header("If-None-Match") } ?? "-"))
check(revalidated.source == .revalidated, "a 304 revalidation")

step(3, "A 503 with Retry-After: 1 is retried after a second, and succeeds.")
let started = ContinuousClock.now
let flaky = try await client.get("flaky")
check(flaky.status == .ok && flaky.attempts == 2, "a retry after the 503")
say("   after │ \(flaky.status) in \(flaky.attempts) attempts, \(milliseconds(ContinuousClock.now - started)) ms: \"\(flaky.text ?? "")\"")

step(4, "Gzip both ways: a request body that asks for it goes out compressed; a gzip answer comes back decoded.")
var upload = try client.jsonRequest(.post, "upload", Array(repeating: ["sensor": "t1", "reading": "21.5"], count: 200))
let uploadSize = try await upload.body.collect().count
try upload.headers.set(name: "X-Tour", value: "gzip")
upload.compressesBody = .always  // bodies are sent as written unless a request (or the configuration) asks
let uploaded = try await client.send(upload)
say("   up    │ \(uploadSize) bytes of JSON; the server got \(uploaded.text ?? "?")")
check(uploaded.text?.contains("\"encoding\":\"gzip\"") == true, "a gzipped upload")
let decoded = try await client.get("report")
check(decoded.body == report, "the gzip answer decoded")
say("   down  │ \(decoded.body.count) bytes decoded from a gzip answer; Content-Encoding now: \(decoded.headers["Content-Encoding"] ?? "none")")

step(5, "Every request is signed last, so the signature covers the bytes sent, on every attempt.")
_ = try await client.get("articles?fresh=1")
say("   sent  │ X-Signature: " + (seen.lastRequest.withLock { $0?.header("X-Signature") }.map { String($0.prefix(24)) + "…" } ?? "-"))

step(6, "Offline: the gate fails at once without touching the network; the cache can still answer.")
network.set(.unreachable)
do {
    _ = try await client.get("profile?new=1")
    check(false, "the offline gate to refuse the call")
} catch let error as SluiceError {
    say("   gate  │ \(error.code): \(error.message)")
    check(error.code == .offline, "an offline error")
}
var request = try client.makeRequest(.get, "articles")
request.cachePolicy = .offlineFallback
let fallback = try await client.send(request)
say("   cache │ \(fallback.status), source: \(fallback.source) (stored earlier, served while offline)")
check(fallback.source == .cache, "the cache to answer while offline")
network.set(.reachable(.wired))

step(7, "The HUD: a call that takes longer than a second shows a spinner on a terminal (stderr).")
var slow = try client.makeRequest(.get, "slow")
slow.hudTip = "Loading the slow page…"
let waited = try await client.send(slow)
say("   done  │ \(waited.status): \"\(waited.text ?? "")\"" + (isatty(STDERR_FILENO) == 1 ? "" : " (no terminal here, so the HUD stayed silent)"))

step(8, "Debug logging follows SLUICE_LOG when the client is built: off, then headers.")
for value in ["off", "headers"] {
    var logged = Client.Builder(transport: transport, configuration: .init(baseURL: URL(string: "http://api.tour.example")))
    logged.environment = ["SLUICE_LOG": value]
    logged.add(
        LoggingMiddleware.fromEnvironment(
            logged.environment ?? [:], sink: .closure { print("   log │ " + $0.replacingOccurrences(of: "\n", with: "\n       │ ")) },
            honoursEnvironmentInRelease: true))
    say("   SLUICE_LOG=\(value):")
    _ = try await logged.build().get("articles")
}

say("\nThat was every middleware in the default order. Next: Examples/CustomPipeline, Examples/InHouseMiddleware,")
say("Examples/DebugLogging, and `sluice --help` for the command-line client.")
server.shutdown()
