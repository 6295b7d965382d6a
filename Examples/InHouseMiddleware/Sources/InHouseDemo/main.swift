// Examples/InHouseMiddleware: a company's own middleware module (AcmeSession, with its own tests
// in Tests/AcmeSessionTests) used in a client beside Sluice's modules.
import AcmeSession
import Foundation
import Sluice
import SluiceLogging
import SluiceTesting
import Synchronization

let sessions = Mutex("s1")
// Acme's API: a session older than s2 has expired.
let transport = MockTransport { request, _ in
    request.headers["X-Acme-Session"] == "s2" ? .json(#"{"user":"ada"}"#) : .status(419, body: "session expired")
}
var builder = Client.Builder(transport: transport)
builder.add(LoggingMiddleware(level: .headers, sink: .closure { print("  " + $0.replacingOccurrences(of: "\n", with: "\n  ")) }))
builder.add(
    AcmeSessionMiddleware(
        configuration: .init(
            current: { sessions.withLock { $0 } },
            renew: {
                sessions.withLock {
                    $0 = "s2"; return "s2"
                }
            })))
let client = builder.build()

print("Acme's session middleware sits at .\(AcmeSessionMiddleware.defaultPosition.name), inside the logger:")
let response = try await client.send(HTTPRequest(url: URL(string: "https://api.acme.test/me")!))
print("Answer: \(response.status) \(response.text ?? "") after the session was renewed once (now \(sessions.withLock { $0 })).")
guard response.status == .ok, transport.requests.count == 2 else {
    FileHandle.standardError.write(Data("in-house example: expected one renewal and a 200\n".utf8))
    exit(1)
}
