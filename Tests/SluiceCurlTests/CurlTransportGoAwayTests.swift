import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 27, item 4: a server's `GOAWAY` with 16 streams in flight (RFC 9113 §6.8). The streams
/// it never processed (above `last_stream_id`) are sent again on a new connection, even for a
/// non-idempotent method, and the caller never sees a framing error for them; those it did
/// process are answered once. Against `Tests/Servers/h2-goaway.py`, an HTTP/2 server over TLS on
/// h2 (PyPI), which holds 16 requests, answers 8 and sends GOAWAY naming the 8th.
@Suite("CurlTransport and an HTTP/2 GOAWAY with streams in flight", .timeLimit(.minutes(2)))
struct CurlTransportGoAwayTests {
    /// `Tests/Servers/h2-goaway.py`, holding `batch` requests and answering `processed` of them.
    static func startServer(batch: Int, processed: Int) async throws -> ScriptServer {
        let folder = URL(fileURLWithPath: try InteropServers.value("SLUICE_NGINX_CA")).deletingLastPathComponent()
        return try await ScriptServer.start(
            "h2-goaway.py",
            arguments: [
                folder.appendingPathComponent("server.pem").path, folder.appendingPathComponent("server.key").path, String(batch), String(processed),
            ])
    }

    @Test(arguments: [HTTPMethod.post, .get])
    func streamsTheServerNeverProcessedAreSentAgainOnANewConnection(method: HTTPMethod) async throws {
        let server = try await Self.startServer(batch: 16, processed: 8)
        var configuration = CurlTransport.Configuration()
        configuration.tls.caFile = try InteropServers.value("SLUICE_NGINX_CA")
        configuration.maxConnectionsPerHost = 1  // the 16 share one HTTP/2 connection
        let transport = CurlTransport(configuration: configuration)
        let base = "https://127.0.0.1:\(server.port)"
        let warm = try await transport.send(HTTPRequest(url: URL(string: base + "/warm")!), context: RequestContext())
        #expect(warm.metrics?.httpVersion == "2")

        let results = await withTaskGroup(of: (Int, Result<HTTPResponse, any Error>).self) { group in
            for index in 0..<16 {
                group.addTask {
                    let body: HTTPBody = method == .post ? .bytes(Data("write \(index)".utf8)) : .empty
                    let request = HTTPRequest(method: method, url: URL(string: base + "/w\(index)")!, body: body)
                    do {
                        return (index, .success(try await transport.send(request, context: RequestContext())))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var all: [Int: Result<HTTPResponse, any Error>] = [:]
            for await (index, result) in group { all[index] = result }
            return all
        }
        // Every caller got its own answer: none saw a framing error.
        for index in 0..<16 {
            switch results[index] {
            case .success(let response)?:
                #expect(response.status == .ok && String(decoding: response.body, as: UTF8.self) == "processed /w\(index)", "\(index)")
            case .failure(let error)?: Issue.record("request \(index) failed: \(error)")
            case nil: Issue.record("request \(index) has no result")
            }
        }
        // Each reached the server once: 8 on the connection that went away, 8 after it.
        let lines = server.lines.map { $0.split(separator: " ").map(String.init) }.filter { $0.count == 6 && $0[4] != "/warm" }
        #expect(Dictionary(grouping: lines, by: { $0[4] }).mapValues(\.count) == Dictionary(uniqueKeysWithValues: (0..<16).map { ("/w\($0)", 1) }))
        #expect(lines.filter { $0[1] == "1" }.count == 8)
        #expect(lines.filter { $0[1] != "1" }.count == 8)
        if method == .post { #expect(lines.allSatisfy { $0[3] == "POST" && Int($0[5]) == "write \(Int($0[4].dropFirst(2)) ?? -1)".utf8.count }) }
    }
}
