// sluice-outbox-helper: a process that queues writes in an outbox while offline, for the outbox's
// kill -9 test (Tests/SluiceOutboxTests).
//
//     sluice-outbox-helper queue DATABASE URL COUNT   queues COUNT POSTs to URL (the server is never
//                                                     asked: every connection fails, as offline),
//                                                     prints "queued N" after each, then waits to be
//                                                     killed
import Dispatch
import Foundation
import Sluice
import SluiceOutbox

/// No connection ever succeeds: the device is offline.
struct Unreachable: HTTPTransport {
    func send(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        throw SluiceError(.cannotConnect, "offline: no connection to \(request.url.host ?? "?")")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 5, arguments[1] == "queue", let url = URL(string: arguments[3]), let count = Int(arguments[4]) else {
    print("usage: sluice-outbox-helper queue DATABASE URL COUNT")
    exit(2)
}
do {
    let outbox = try Outbox(path: arguments[2], transport: Unreachable())
    let pipeline = Pipeline(middlewares: [OutboxMiddleware(outbox: outbox)], transport: Unreachable())
    for index in 0..<count {
        var write = HTTPRequest(method: .post, url: url, body: .bytes(Data("write \(index)".utf8)))
        write.usesOutbox = true
        let response = try await pipeline.send(write)
        guard response.status.code == 202 else { print("not queued: \(response.status)"); exit(1) }
        FileHandle.standardOutput.write(Data("queued \(index + 1)\n".utf8))
    }
} catch {
    print("error: \(error)")
    exit(1)
}
while true { sleep(60) }  // wait to be killed
