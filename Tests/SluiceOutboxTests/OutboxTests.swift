import CSQLite
import Foundation
import Sluice
import SluiceCurl
import SluiceOutbox
import SluiceReachability
import SluiceRetry
import SluiceTestSupport
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A monitor the test sets by hand.
final class ManualMonitor: ReachabilityMonitor {
    private let state = Locked<(status: ReachabilityStatus, subscribers: [AsyncStream<ReachabilityStatus>.Continuation])>((.unreachable, []))
    var status: ReachabilityStatus { state.withLock { $0.status } }
    var statusUpdates: AsyncStream<ReachabilityStatus> {
        AsyncStream { continuation in
            state.withLock {
                continuation.yield($0.status); $0.subscribers.append(continuation)
            }
        }
    }
    func set(_ status: ReachabilityStatus) {
        for subscriber in state.withLock({
            $0.status = status; return $0.subscribers
        }) { subscriber.yield(status) }
    }
}

/// Offline whenever the monitor says so (the real gate lets loopback through, and the test server
/// is on loopback).
struct OfflineWhenUnreachable: Middleware {
    let monitor: ManualMonitor
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        if monitor.status == .unreachable { throw SluiceError(.offline, "offline (test)") }
        return try await next(request, context)
    }
}

func helper() throws -> URL {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL,
        Bundle.main.bundleURL.deletingLastPathComponent(),
    ].map { $0.appendingPathComponent("sluice-outbox-helper") }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        struct Missing: Error {}
        throw Missing()
    }
    return found
}

@Suite("Outbox", .timeLimit(.minutes(3)))
struct OutboxTests {
    let folder: TemporaryDirectory
    let server: MockWebServer

    init() throws {
        folder = try TemporaryDirectory(prefix: "sluice-outbox")
        server = try MockWebServer()
    }

    var database: String { folder.path + "/outbox.sqlite" }

    @Test func aHundredWritesQueuedOfflineSurviveKillDashNineAndArriveExactlyOnce() async throws {
        let process = Process()
        let output = Pipe()
        process.executableURL = try helper()
        process.arguments = ["queue", database, server.url("/notes").absoluteString, "100"]
        process.standardOutput = output
        let lines = Locked("")
        try process.run()
        let reader = Blocking.readToEnd(output.fileHandleForReading) { chunk in lines.withLock { $0 += String(decoding: chunk, as: UTF8.self) } }
        let deadline = ContinuousClock.now + TestTiming.scaled(.seconds(30))
        while !lines.withLock({ $0.contains("queued 100\n") }), ContinuousClock.now < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGKILL)
        try await Blocking.run { process.waitUntilExit() }
        try await reader.value  // the child is gone, so its end of the pipe is closed: the read ends
        #expect(lines.withLock { $0.contains("queued 100\n") })
        #expect(server.requests.isEmpty, "nothing was sent while offline")

        // Restart, with the server reachable: everything arrives once, in order.
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "stored") }
        let outbox = try Outbox(path: database, transport: CurlTransport())
        #expect(try outbox.pendingCount() == 100)
        async let first: Void = outbox.replay()
        async let second: Void = outbox.replay()
        _ = await (first, second)
        await outbox.replay()
        let keys = server.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(server.requests.count == 100)
        #expect(Set(keys).count == 100)
        #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == (0..<100).map { "write \($0)" })
        #expect(try outbox.pendingCount() == 0)
    }

    @Test func aRequestWhoseLiteralLeftAFieldOutIsNotStored() throws {
        let outbox = try Outbox(path: database, transport: CurlTransport())
        let write = HTTPRequest(method: .post, url: server.url("/notes"), headers: ["Authorization": "Bearer t\r\n"])
        let error = #expect(throws: SluiceError.self) { try outbox.enqueue(write) }
        #expect(error?.code == .invalidHeader)
        #expect(error?.message == #"value of header "Authorization" has CR (0x0D) at byte 8; CR, LF and NUL are never allowed in header fields"#)
        #expect(try outbox.pendingCount() == 0)
    }

    @Test func theMiddlewareSendsNowWhenItCanAndQueuesWhenOffline() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "stored") }
        let monitor = ManualMonitor()
        monitor.set(.reachable(.wired))
        let outbox = try Outbox(path: database, transport: CurlTransport(), monitor: monitor)
        let pipeline = Pipeline(middlewares: [OutboxMiddleware(outbox: outbox), OfflineWhenUnreachable(monitor: monitor)], transport: CurlTransport())
        var write = HTTPRequest(method: .post, url: server.url("/notes"), body: .bytes(Data("now".utf8)))
        write.usesOutbox = true
        let sent = try await pipeline.send(write)
        #expect(sent.status.code == 201 && sent.source == .network)
        #expect(server.requests.last?.header("Idempotency-Key") != nil)

        monitor.set(.unreachable)
        write.body = .bytes(Data("later".utf8))
        let queued = try await pipeline.send(write)
        #expect(queued.status.code == 202 && queued.source == .outbox)
        let key = try #require(queued.headers["Idempotency-Key"])
        #expect(try outbox.pendingCount() == 1)
        #expect(server.requests.count == 1)
        // Queued writes hold request bodies and headers: the database and its WAL are the owner's alone.
        for suffix in ["", "-wal"] {
            let mode = try FileManager.default.attributesOfItem(atPath: database + suffix)[.posixPermissions] as? Int
            #expect(mode == 0o600, "outbox\(suffix)")
        }

        // Not opted in, or a GET: the error comes back.
        let plain = HTTPRequest(method: .post, url: server.url("/notes"), body: .bytes(Data("x".utf8)))
        await #expect { _ = try await pipeline.send(plain) } throws: { ($0 as? SluiceError)?.code == .offline }

        // Back online: start() replays on its own, and the outcome says so.
        let outcomes = outbox.outcomes
        outbox.start()
        monitor.set(.reachable(.wireless))
        var delivered: Outbox.Outcome?
        for await outcome in outcomes { delivered = outcome; break }
        #expect(delivered == .delivered(key: key, status: 201))
        #expect(server.requests.count == 2 && server.requests.last?.header("Idempotency-Key") == key)
        #expect(String(decoding: server.requests[1].body, as: UTF8.self) == "later")
    }

    @Test func aServerErrorKeepsTheWriteAndLimitsEndIt() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 503, body: "busy") }
        let outbox = try Outbox(path: database, transport: CurlTransport(), configuration: .init(maximumAttempts: 2))
        let key = try outbox.enqueue(HTTPRequest(method: .put, url: server.url("/a"), body: .bytes(Data("a".utf8))))
        await outbox.replay()
        #expect(try outbox.pendingCount() == 1)
        await outbox.replay()
        let outcomes = outbox.outcomes
        await outbox.replay()
        var last: Outbox.Outcome?
        for await outcome in outcomes { last = outcome; break }
        #expect(last == .gaveUp(key: key, attempts: 2))
        #expect(try outbox.pendingCount() == 0)
        #expect(server.requests.count == 2)

        let expiring = try Outbox(path: folder.path + "/expiring.sqlite", transport: CurlTransport(), configuration: .init(maximumAge: .zero))
        let old = try expiring.enqueue(HTTPRequest(method: .delete, url: server.url("/b")))
        let expiries = expiring.outcomes
        try await Task.sleep(for: .milliseconds(1_100))
        await expiring.replay()
        var expired: Outbox.Outcome?
        for await outcome in expiries { expired = outcome; break }
        #expect(expired == .expired(key: old))
        #expect(server.requests.count == 2)
    }

    /// Issue 53, item 11: a replay had no deadline, so one silent server held the pass for ever,
    /// and every write behind it. Each replayed call has `replayTimeout`: the silent one is kept
    /// for the next pass (its attempt counted), and the writes after it go now, by either door.
    @Test func aSilentServerHoldsOneReplayedCallForItsTimeoutNotThePass() async throws {
        /// The next outcome, or nil when none comes within 5 s (never a wait without end).
        func nextOutcome(_ stream: AsyncStream<Outbox.Outcome>) async -> Outbox.Outcome? {
            await withTaskGroup(of: Outbox.Outcome?.self) { group in
                group.addTask {
                    for await outcome in stream { return outcome }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: TestTiming.scaled(.seconds(5)))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
        let silence = TestGate()
        defer { silence.open() }
        server.setHandler { request in
            request.target == "/silent" ? MockWebServer.Response(status: 200, body: "late").with(stallAfter: 0, until: silence) : .init(status: 201, body: "ok")
        }
        let outbox = try Outbox(path: database, transport: CurlTransport(), configuration: .init(replayTimeout: TestTiming.scaled(.seconds(1))))
        let silent = try outbox.enqueue(HTTPRequest(method: .put, url: server.url("/silent"), body: .bytes(Data("s".utf8))))
        let after = try outbox.enqueue(HTTPRequest(method: .put, url: server.url("/after"), body: .bytes(Data("a".utf8))))
        let outcomes = outbox.outcomes
        let start = ContinuousClock.now
        await outbox.replay()
        #expect(start.duration(to: .now) < TestTiming.scaled(.seconds(10)))
        #expect(await nextOutcome(outcomes) == .delivered(key: after, status: 201))
        #expect(try outbox.pendingCount() == 1, "the silent write is kept: \(silent)")
        #expect(server.requests.map(\.target).sorted() == ["/after", "/silent"])

        // Through a client's chain: the same.
        let second = try outbox.enqueue(HTTPRequest(method: .put, url: server.url("/second"), body: .bytes(Data("b".utf8))))
        let more = outbox.outcomes
        await outbox.replay(through: Client(transport: CurlTransport(), middlewares: [OutboxMiddleware(outbox: outbox)]))
        #expect(await nextOutcome(more) == .delivered(key: second, status: 201))
        #expect(try outbox.pendingCount() == 1)
    }

    @Test func onlyInMemoryBodiesAreKept() throws {
        let outbox = try Outbox(path: database, transport: CurlTransport())
        let stream = HTTPRequest(method: .post, url: server.url("/s"), body: .stream(.oneShot(length: nil, AsyncThrowingStream { $0.finish() })))
        #expect {
            try outbox.enqueue(stream)
        } throws: { error in
            (error as? SluiceError)?.code == .invalidBody
                && (error as? SluiceError)?.message
                    == "the outbox keeps in-memory bodies only; POST \(server.url("/s").absoluteString) has a file or stream body"
        }
    }

    @Test func anOutboxThatCannotBeOpenedIsWriteFailedNamingThePathAndTheReason() throws {
        try Data().write(to: URL(fileURLWithPath: database + ".file"))
        let path = database + ".file/outbox.sqlite"
        #expect {
            _ = try Outbox(path: path, transport: CurlTransport())
        } throws: { error in
            (error as? SluiceError)?.code == .writeFailed
                && (error as? SluiceError)?.message
                    == "cannot open the outbox at \(path): SQLite error 14: cannot open or create \(path): Not a directory"
        }
    }

    @Test func storedFieldsComeBackInOrderWithRepeatedNames() async throws {
        let outbox = try Outbox(path: database, transport: CurlTransport())
        var request = HTTPRequest(method: .post, url: server.url("/fields"), body: .bytes(Data("x".utf8)))
        try request.headers.append(name: "X-Trace", value: "one")
        try request.headers.append(name: "Content-Type", value: "text/plain")
        try request.headers.append(name: "x-trace", value: "two")
        let key = try outbox.enqueue(request)
        server.enqueue(.init(status: 201))
        await outbox.replay()
        let sent = try #require(server.requests.last)
        #expect(sent.headers.filter { $0.name.lowercased() == "x-trace" }.map(\.value) == ["one", "two"])
        #expect(sent.header("Content-Type") == "text/plain")
        #expect(sent.header("Idempotency-Key") == key)
        #expect(try outbox.pendingCount() == 0)
    }

    /// Rows written behind the outbox's back, as a damaged file or another program might leave them.
    func insertRaw(_ rows: [(key: String, method: String, url: String, headers: String)]) throws {
        var db: OpaquePointer?
        guard sqlite3_open(database, &db) == SQLITE_OK else { throw SluiceError(.writeFailed, "cannot open \(database)") }
        defer { sqlite3_close(db) }
        sqlite3_exec(db, "BEGIN", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO outbox (key, method, url, headers, body, created) VALUES (?1, ?2, ?3, ?4, x'', ?5)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for row in rows {
            sqlite3_reset(statement)
            sqlite3_bind_text(statement, 1, row.key, -1, transient)
            sqlite3_bind_text(statement, 2, row.method, -1, transient)
            sqlite3_bind_text(statement, 3, row.url, -1, transient)
            sqlite3_bind_text(statement, 4, row.headers, -1, transient)
            sqlite3_bind_double(statement, 5, Date().timeIntervalSince1970)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw SluiceError(.writeFailed, "cannot insert \(row.key)") }
        }
        sqlite3_exec(db, "COMMIT", nil, nil, nil)
    }

    @Test func twentyThousandDamagedRowsAreDeadLetteredInALoopAndTheGoodOneIsSent() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "stored") }
        let outbox = try Outbox(path: database, transport: CurlTransport())
        try insertRaw((0..<20_000).map { ("bad-\($0)", "GET", "::not a url::", "") })
        let good = try outbox.enqueue(HTTPRequest(method: .post, url: server.url("/good"), body: .bytes(Data("ok".utf8))))
        await outbox.replay()
        #expect(server.requests.count == 1 && server.requests.first?.header("Idempotency-Key") == good)
        #expect(try outbox.pendingCount() == 0)
        let letters = try outbox.deadLetters()
        #expect(letters.count == 20_000)
        #expect(letters.first?.key == "bad-0" && letters.first?.reason == "the stored URL is not an http or https URL")
    }

    @Test func aRowWhoseHeadersNoLongerParseIsNeverSentWithoutThem() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "stored") }
        let outbox = try Outbox(path: database, transport: CurlTransport())
        try insertRaw([("broken-fields", "POST", server.url("/w").absoluteString, "Authorization Bearer abc\r\nIdempotency-Key: broken-fields\r\n")])
        let outcomes = outbox.outcomes
        await outbox.replay()
        var outcome: Outbox.Outcome?
        for await next in outcomes { outcome = next; break }
        #expect(server.requests.isEmpty)
        #expect(try outbox.pendingCount() == 0)
        let letter = try #require(try outbox.deadLetters().first)
        #expect(letter.key == "broken-fields")
        #expect(letter.reason == #"the stored header fields are damaged: header line "Authorization Bearer abc" has no colon"#)
        #expect(outcome == .deadLettered(key: "broken-fields", reason: letter.reason))
    }

    @Test func aWriteTheServerRefusesIsDeadLetteredWithItsStatusNeverDeleted() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 403, body: "forbidden") }
        let outbox = try Outbox(path: database, transport: CurlTransport())
        let key = try outbox.enqueue(HTTPRequest(method: .put, url: server.url("/doc"), body: .bytes(Data("v2".utf8))))
        let outcomes = outbox.outcomes
        await outbox.replay()
        var outcome: Outbox.Outcome?
        for await next in outcomes { outcome = next; break }
        #expect(outcome == .deadLettered(key: key, reason: "the server answered 403 Forbidden"))
        #expect(try outbox.pendingCount() == 0)
        #expect(try outbox.deadLetters().map(\.key) == [key])
        #expect(server.requests.count == 1)
    }

    @Test func aReplayThroughTheClientPassesItsChainAgainAndIsStampedForTheMomentItGoesOut() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "stored") }
        let monitor = ManualMonitor()
        monitor.set(.unreachable)
        let outbox = try Outbox(path: database, transport: CurlTransport())
        let stamp = Stamp()
        let client = Client(
            transport: CurlTransport(), middlewares: [OutboxMiddleware(outbox: outbox), OfflineWhenUnreachable(monitor: monitor), stamp])
        var write = HTTPRequest(method: .post, url: server.url("/notes"), body: .bytes(Data("later".utf8)))
        write.usesOutbox = true
        #expect(try await client.send(write).status.code == 202)
        #expect(stamp.count == 0)  // queued before the stamping stage
        monitor.set(.reachable(.wired))
        await outbox.replay(through: client)
        #expect(try outbox.pendingCount() == 0)
        let sent = try #require(server.requests.last)
        #expect(sent.header("X-Stamp") == "1")  // stamped by the chain, when it went out
        #expect(sent.header("Idempotency-Key") != nil)
        #expect(String(decoding: sent.body, as: UTF8.self) == "later")
    }

    /// Issue 44, item 2: the key `IdempotencyKeyMiddleware` gives a write (outside the outbox) is
    /// the key its replay sends; another write gets its own.
    @Test func theIdempotencyKeyAWriteWasGivenIsTheKeyItsReplaySends() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "stored") }
        let monitor = ManualMonitor()
        monitor.set(.unreachable)
        let outbox = try Outbox(path: database, transport: CurlTransport())
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(IdempotencyKeyMiddleware())
        builder.add(OutboxMiddleware(outbox: outbox))
        builder.add(OfflineWhenUnreachable(monitor: monitor), at: .reachability)
        let client = builder.build()
        var keys: [String] = []
        for note in ["first", "second"] {
            var write = HTTPRequest(method: .post, url: server.url("/notes"), body: .bytes(Data(note.utf8)))
            write.usesOutbox = true
            let accepted = try await client.send(write)
            #expect(accepted.status.code == 202)
            keys.append(try #require(accepted.headers["Idempotency-Key"]))
        }
        #expect(Set(keys).count == 2, "two writes never share a key")
        monitor.set(.reachable(.wired))
        await outbox.replay(through: client)
        #expect(try outbox.pendingCount() == 0)
        #expect(server.requests.map { $0.header("Idempotency-Key") } == keys)
        #expect(server.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["first", "second"])
    }

    @Test func aPlainReplayIsANewCallThroughTheWholeClientWithAFreshTokenAndSignature() async throws {
        // The server takes only signed writes with the token of the moment: a replay with the
        // token it was stored with, or unsigned, would be refused.
        let token = Locked("token-1")
        server.setHandler { request in
            guard request.header("X-Stamp") != nil, request.header("X-Token") == token.withLock({ $0 }) else {
                return MockWebServer.Response(status: 403, body: "refused")
            }
            return MockWebServer.Response(status: 201, body: "stored")
        }
        let monitor = ManualMonitor()
        monitor.set(.unreachable)
        let outbox = try Outbox(path: database, transport: CurlTransport(), monitor: monitor)
        let stamp = Stamp()
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(OutboxMiddleware(outbox: outbox))
        builder.add(OfflineWhenUnreachable(monitor: monitor), at: .reachability)
        builder.add(stamp, at: .signing)
        builder.add(TokenStage(token: token), at: .headers)
        let client = builder.build()
        var write = HTTPRequest(method: .post, url: server.url("/notes"), body: .bytes(Data("later".utf8)))
        write.usesOutbox = true
        #expect(try await client.send(write).status.code == 202)
        #expect(stamp.count == 0)
        // The token a middleware added is not kept in the file: the replay gets a fresh one.
        let files = try ["", "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: database + $0)) }.reduce(Data(), +)
        #expect(files.range(of: Data("later".utf8)) != nil, "the write is in the outbox")
        #expect(files.range(of: Data("token-1".utf8)) == nil, "the outbox holds the token")
        token.withLock { $0 = "token-2" }  // renewed while the write waited
        let outcomes = outbox.outcomes
        monitor.set(.reachable(.wired))
        outbox.start()
        var outcome: Outbox.Outcome?
        for await next in outcomes { outcome = next; break }
        guard case .delivered(_, status: 201) = outcome else {
            Issue.record("the replay was not delivered: \(String(describing: outcome))")
            return
        }
        #expect(stamp.count == 1)
        #expect(server.requests.map { $0.header("X-Stamp") } == ["1"])
        #expect(server.requests.map { $0.header("X-Token") } == ["token-2"])
        #expect(try outbox.deadLetters().isEmpty)
    }

    @Test func onceTheClientIsGoneAReplayGoesStraightToTheTransport() async throws {
        server.setHandler { _ in MockWebServer.Response(status: 201, body: "stored") }
        let outbox = try Outbox(path: database, transport: CurlTransport())
        let stamp = Stamp()
        do {
            _ = Client(transport: CurlTransport(), middlewares: [OutboxMiddleware(outbox: outbox), stamp])
        }
        _ = try outbox.enqueue(HTTPRequest(method: .post, url: server.url("/notes"), body: .bytes(Data("later".utf8))))
        await outbox.replay()
        #expect(try outbox.pendingCount() == 0)
        #expect(stamp.count == 0)
        #expect(server.requests.map { $0.header("X-Stamp") } == [nil])
    }
}

/// A stand-in for an auth stage: sets the token of the moment.
struct TokenStage: Middleware {
    let token: Locked<String>
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        try request.headers.set(name: "X-Token", value: token.withLock { $0 })
        request.credentialFields.insert("x-token")
        return try await next(request, context)
    }
}

/// A stand-in for a signing stage: stamps each request it sees with a count.
struct Stamp: Middleware {
    private let seen = Locked(0)
    var count: Int { seen.withLock { $0 } }
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        let number = seen.withLock { value -> Int in
            value += 1
            return value
        }
        try request.headers.set(name: "X-Stamp", value: String(number))
        return try await next(request, context)
    }
}
