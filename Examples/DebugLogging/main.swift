// Examples/DebugLogging: the levels of LoggingMiddleware, secrets redacted, JSON lines, "copy as
// curl", a HAR recording, and the SLUICE_LOG switch that turns logging on without a code change.
import Foundation
import Sluice
import SluiceLogging
import SluiceTesting
import Synchronization

func check(_ condition: Bool, _ claim: String) {
    guard condition else {
        FileHandle.standardError.write(Data("debug-logging example: expected \(claim)\n".utf8))
        exit(1)
    }
}

let transport = MockTransport { request, _ in
    .json(#"{"user":"ada","token":"t-123","items":[1,2,3]}"#)
}
var request = HTTPRequest(
    method: .post, url: URL(string: "https://api.example.com/login?user=ada&password=hunter2")!,
    headers: ["Content-Type": "application/json", "Authorization": "Bearer abc.def"],
    body: .bytes(Data(#"{"user":"ada","password":"hunter2"}"#.utf8)))
try request.headers.append(name: "Accept", value: "application/json")

/// What a sink received.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

for level in [LogLevel.basic, .headers, .body] {
    print("── \(level) ──")
    let lines = Lines()
    let logger = LoggingMiddleware(
        level: level,
        sink: .closure {
            print($0); lines.append($0)
        })
    _ = try await Pipeline(middlewares: [logger], transport: transport).send(request)
    check(!lines.all.joined().contains("hunter2") && !lines.all.joined().contains("abc.def"), "secrets redacted at \(level)")
}

print("── JSON lines (for log pipelines) ──")
_ = try await Pipeline(middlewares: [LoggingMiddleware(level: .basic, sink: .closure { print($0) }, format: .jsonLines)], transport: transport)
    .send(request)

print("── copy as curl (redacted unless you opt in) ──")
print(CurlCommand(request).command)

print("── a HAR recording that browsers' devtools open ──")
let recorder = HARRecorder()
_ = try await Pipeline(middlewares: [HARRecorderMiddleware(recorder: recorder)], transport: transport).send(request)
let har = try recorder.data()
print("\(har.count) bytes of HAR 1.2; the password appears \(String(decoding: har, as: UTF8.self).components(separatedBy: "hunter2").count - 1) times")

print("── SLUICE_LOG decides when the client is built ──")
for value in ["off", "basic"] {
    var builder = Client.Builder(transport: transport)
    builder.environment = ["SLUICE_LOG": value]
    builder.add(LoggingMiddleware.fromEnvironment(builder.environment ?? [:], sink: .closure { print("  " + $0) }, honoursEnvironmentInRelease: true))
    print("SLUICE_LOG=\(value): \(builder.resolvedMiddlewares.count) middleware in the chain")
    _ = try await builder.build().get("https://api.example.com/ping")
}
