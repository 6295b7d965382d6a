// Examples/CustomPipeline: a pipeline assembled in code, in an order of your own, and a client
// whose builder keeps the default order while you add, replace, disable and enable middleware.
import Foundation
import Sluice
import SluiceCache
import SluiceHeaders
import SluiceLogging
import SluiceRetry
import SluiceTesting

func check(_ condition: Bool, _ claim: String) {
    guard condition else {
        FileHandle.standardError.write(Data("custom-pipeline example: expected \(claim)\n".utf8))
        exit(1)
    }
}

// A flaky API: every second request fails with a 503.
let transport = MockTransport { request, context in
    context.attempt == 1 && request.url.path == "/flaky" ? .status(503, body: "busy") : .json(#"{"ok":true}"#)
}
let printer = LogSink.closure { print("    " + $0) }

print("1. By hand, in exactly this order: an application logger outside retry, and a network logger")
print("   inside it that sees every attempt (OkHttp's two kinds of interceptor).")
let pipeline = Pipeline(
    middlewares: [
        LoggingMiddleware(level: .basic, sink: .closure { print("    app     │ " + $0) }),
        RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(baseDelay: .milliseconds(10)))),
        HeadersMiddleware(configuration: .init(fields: ["Accept": "application/json"])),
        LoggingMiddleware(level: .basic, sink: .closure { print("    network │ " + $0) }),
    ], transport: transport)
let response = try await pipeline.send(HTTPRequest(url: URL(string: "https://api.example.com/flaky")!))
check(response.attempts == 2 && transport.requests.count == 2, "two attempts through the hand-made chain")

print("\n2. Through the builder: whatever order you add in, each lands at its default position.")
var builder = Client.Builder(transport: transport, configuration: .init(baseURL: URL(string: "https://api.example.com")))
builder.add(RetryMiddleware())
builder.add(CacheMiddleware(store: MemoryCacheStore()))
builder.add(LoggingMiddleware(level: .basic, sink: printer))
builder.add(HeadersMiddleware(configuration: .init(fields: ["X-App": "example/1.0"])))
let names = { (builder: Client.Builder) in builder.middlewares.map { "\(type(of: $0))" }.joined(separator: " → ") }
print("    order: " + names(builder))
check(names(builder) == "LoggingMiddleware → HeadersMiddleware → RedirectMiddleware → CacheMiddleware → RetryMiddleware", "the default order")

print("\n3. Change one thing at a time; the rest stays wired.")
builder.replace(HeadersMiddleware.self, with: HeadersMiddleware(configuration: .init(fields: ["X-App": "example/2.0"])))
builder.setEnabled(false, for: LoggingMiddleware.self)
print("    logging off: " + names(builder))
let quiet = builder.build()
_ = try await quiet.get("items")
check(transport.requests.last?.request.headers["X-App"] == "example/2.0", "the replaced header middleware")
builder.setEnabled(true, for: LoggingMiddleware.self)
print("    logging on:  " + names(builder))
_ = try await builder.build().get("items")
print("\nDone: a hand-made order, the builder's default order, and changes by type.")
