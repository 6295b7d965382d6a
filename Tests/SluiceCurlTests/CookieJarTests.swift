import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Synchronization
import Testing

@Suite("CurlTransport's cookie jar against MockWebServer")
struct CookieJarTests {
    let server: MockWebServer

    init() throws {
        server = try MockWebServer()
        server.setHandler { request in
            if request.target == "/login" {
                return .init(status: 200, headers: [("Set-Cookie", "session=abc123; Path=/; HttpOnly")], body: "welcome")
            }
            return .init(status: 200, body: request.header("Cookie") ?? "(no cookie)")
        }
    }

    func transport(_ jar: CurlTransport.Configuration.CookieJar?, eventThreads: Int = 1) -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.cookieJar = jar
        configuration.eventThreads = eventThreads
        return CurlTransport(configuration: configuration)
    }

    func get(_ path: String, _ transport: CurlTransport) async throws -> String {
        try await transport.send(HTTPRequest(url: server.url(path)), context: RequestContext()).text ?? ""
    }

    @Test func withoutAJarNoCookieIsKept() async throws {
        let transport = transport(nil)
        _ = try await get("/login", transport)
        #expect(try await get("/me", transport) == "(no cookie)")
        #expect(transport.cookies.isEmpty)
    }

    @Test func aMemoryJarSendsTheCookieBackUntilItIsCleared() async throws {
        let transport = transport(.memory)
        #expect(try await get("/me", transport) == "(no cookie)")
        _ = try await get("/login", transport)
        #expect(try await get("/me", transport) == "session=abc123")
        #expect(transport.cookies.count == 1)
        #expect(transport.cookies.first?.hasSuffix("\tsession\tabc123") == true)
        try transport.clearCookies()
        #expect(transport.cookies.isEmpty)
        #expect(try await get("/me", transport) == "(no cookie)")
    }

    @Test func everyEventThreadSharesOneJar() async throws {
        let transport = transport(.memory, eventThreads: 2)
        #expect(transport.executors.count == 2)
        _ = try await get("/login", transport)
        // Calls pinned to each event thread in turn: each runs on its thread's curl_multi, and
        // each sends the cookie the other thread's handle received.
        let seen = try await withThrowingTaskGroup(of: (thread: String, cookie: String).self) { group in
            for index in 0..<12 {
                group.addTask(executorPreference: transport.executors[index % 2]) {
                    let cookie = try await get("/me/\(index)", transport)
                    return (currentThreadName() ?? "?", cookie)
                }
            }
            return try await group.reduce(into: [String: Set<String>]()) { $0[$1.thread, default: []].insert($1.cookie) }
        }
        #expect(seen.count == 2, "the calls ran on \(seen.keys.sorted())")
        #expect(seen.values.allSatisfy { $0 == ["session=abc123"] }, "\(seen)")
    }

    @Test func aCookieIsNotSentToAnotherHost() async throws {
        let transport = transport(.memory)
        _ = try await get("/login", transport)  // set by 127.0.0.1
        let other = URL(string: "http://localhost:\(server.port)/me")!
        let response = try await transport.send(HTTPRequest(url: other), context: RequestContext())
        #expect(response.text == "(no cookie)")
    }

    @Test func aFileJarOutlivesTheTransport() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cookies-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            let first = transport(.file(file.path))
            _ = try await get("/login", first)
            // Saved as soon as the response set the cookie.
            let saved = try String(contentsOf: file, encoding: .utf8)
            #expect(saved.contains("\tsession\tabc123"))
            // Session cookies are credentials: the file is the owner's alone.
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        let second = transport(.file(file.path))
        let sent = try await get("/me", second)
        #expect(sent == "session=abc123", "the jar file held: \((try? String(contentsOf: file, encoding: .utf8)) ?? "nothing")")
    }

    @Test func aJarLoadedWhileAnotherTransportSavesItSeesEveryCookie() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.txt").path
        let writer = transport(.file(file))
        _ = try await get("/login", writer)
        let done = Atomic<Bool>(false)
        let saved = Atomic<Int>(0)
        // One thread saves the jar over and over while new transports load it.
        let saves = Task.detached {
            while !done.load(ordering: .relaxed) {
                try writer.saveCookies()
                saved.add(1, ordering: .relaxed)
            }
        }
        try await Wait.until("the jar has been saved once") { saved.load(ordering: .relaxed) > 0 }
        var empty = 0
        for _ in 0..<150 where transport(.file(file)).cookies.count != 1 { empty += 1 }
        done.store(true, ordering: .relaxed)
        try await saves.value
        let savesDuringLoads = saved.load(ordering: .relaxed)
        #expect(savesDuringLoads > 1)
        #expect(empty == 0, "\(empty) of 150 loads found no cookie while the jar was saved \(savesDuringLoads) times")
        // Once the loaded transports are gone (each saves the jar as it ends), nothing but the jar
        // is left beside it, and it stays the owner's alone.
        try await Wait.until("only the jar is in \(directory.path)") {
            (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["cookies.txt"]
        }
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
    }

    @Test func theChainIsToldExactlyTheCookiesCurlSends() async throws {
        let cookies = Self.cookieServer()
        let transport = transport(.memory)
        _ = try await transport.send(HTTPRequest(url: cookies.url("/set")), context: RequestContext())
        #expect(transport.keepsCookies)
        for path in ["/", "/docs", "/docs/", "/docs/api/x", "/docsx", "/other", "/docs/api"] {
            let url = cookies.url(path)
            let predicted = transport.cookieField(for: url)
            let response = try await transport.send(HTTPRequest(url: url), context: RequestContext())
            #expect(response.text == (predicted ?? "(no cookie)"), "for \(path)")
        }
        // A host the cookies were not set for gets none, and said so.
        let other = URL(string: "http://localhost:\(cookies.port)/docs")!
        #expect(transport.cookieField(for: other) == nil)
        #expect(try await transport.send(HTTPRequest(url: other), context: RequestContext()).text == "(no cookie)")
        #expect(!self.transport(nil).keepsCookies)
    }

    /// Issue 27: the prediction the cache matches `Vary: Cookie` on is what curl sends, for every
    /// form of a URL curl accepts (before, `http://127.1/` and `http://2130706433/` were predicted
    /// to carry no cookie while curl sent 127.0.0.1's, so a private page was stored as
    /// cookie-less).
    @Test func theCookiesPredictedForEveryURLFormAreTheOnesCurlSends() async throws {
        let cookies = Self.cookieServer()
        let transport = transport(.memory)
        let port = cookies.port
        _ = try await transport.send(HTTPRequest(url: cookies.url("/set")), context: RequestContext())
        _ = try await transport.send(HTTPRequest(url: URL(string: "http://localhost:\(port)/set")!), context: RequestContext())
        let forms = [
            "http://127.0.0.1:\(port)/docs", "http://127.1:\(port)/docs", "http://2130706433:\(port)/docs",
            "http://0x7f.0.0.1:\(port)/docs", "http://0177.0.0.1:\(port)/docs", "http://0x7f000001:\(port)/docs",
            "http://127.0.0.1:\(port)/static/../docs", "http://127.0.0.1:\(port)/docs/./api/x", "http://127.1:\(port)/x/../docs/api",
            "http://127.0.0.1:\(port)/docs/api/..", "http://127.0.0.1:\(port)/%64ocs", "http://127.0.0.1:\(port)/docs%2fapi",
            "http://127.0.0.1:0\(port)/docs", "http://LOCALHOST:\(port)/docs", "http://localhost:\(port)/docs/api",
            "http://localhost.:\(port)/docs", "http://127.0.0.1:\(port)", "http://127.0.0.1:\(port)?q=/docs",
        ]
        var sent = 0
        for form in forms {
            let url = try #require(URL(string: form), "\(form)")
            let predicted = transport.cookieField(for: url)
            // A form the resolver refuses (no request left the process) has nothing to compare.
            guard let response = try? await transport.send(HTTPRequest(url: url), context: RequestContext()) else { continue }
            sent += 1
            #expect(response.text == (predicted ?? "(no cookie)"), "for \(form)")
        }
        #expect(sent >= forms.count - 1)
        // The numeric forms are 127.0.0.1's: they carry its cookies (the case the cache got wrong).
        #expect(transport.cookieField(for: URL(string: "http://2130706433:\(port)/docs")!) == "z=6; b=2; s=4; a=1")
    }

    /// `/set` sets cookies on several paths (one secure, one already expired); every other path
    /// answers with the `Cookie` field it received.
    static func cookieServer() -> MockWebServer {
        let server = try! MockWebServer()
        server.setHandler { request in
            guard request.target == "/set" else { return .init(status: 200, body: request.header("Cookie") ?? "(no cookie)") }
            return .init(
                status: 200,
                headers: [
                    ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/docs"), ("Set-Cookie", "c=3; Path=/docs/api"),
                    ("Set-Cookie", "s=4; Path=/; Secure"), ("Set-Cookie", "gone=5; Path=/; Max-Age=0"), ("Set-Cookie", "z=6; Path=/docs/"),
                ], body: "set")
        }
        return server
    }

    @Test func anUnwritableJarFileIsATypedError() async throws {
        let transport = transport(.file("/nonexistent-directory/cookies.txt"))
        _ = try await get("/login", transport)
        #expect {
            try transport.saveCookies()
        } throws: { error in
            (error as? SluiceError)?.code == .writeFailed
                && (error as? SluiceError)?.message == "cannot save the cookie jar to /nonexistent-directory/cookies.txt: No such file or directory"
        }
    }
}
