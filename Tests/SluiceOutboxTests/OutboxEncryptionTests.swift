import Foundation
import Sluice
import SluiceCurl
import SluiceEncryption
import SluiceOutbox
import SluiceReachability
import SluiceTestSupport
import SluiceTesting
import Testing

/// Issue 27, item 7: the outbox keeps what it will send. A write that `PayloadEncryptionMiddleware`
/// encrypts end to end is kept sealed (the file never holds its plaintext) and goes out sealed
/// once, never twice; a cipher that cannot tell a sealed body has its writes refused, not kept.
@Suite("Outbox and payload encryption", .timeLimit(.minutes(2)))
struct OutboxEncryptionTests {
    let folder: TemporaryDirectory
    let server: MockWebServer
    let keys = StaticKeyProvider(keys: ["k-2026": Data((0..<32).map { UInt8($0 &* 5 &+ 1) })], current: "k-2026")
    let plaintext = Data(#"{"diary":"met Bob at the quay, 21:40"}"#.utf8)

    init() throws {
        folder = try TemporaryDirectory(prefix: "sluice-outbox-encryption")
        server = try MockWebServer()
    }

    var database: String { folder.path + "/outbox.sqlite" }

    /// The outbox's files, main database and write-ahead log (when there is one), as bytes.
    func files() -> Data {
        ["", "-wal"].compactMap { try? Data(contentsOf: URL(fileURLWithPath: database + $0)) }.reduce(Data(), +)
    }

    enum Cipher: String, CaseIterable, Sendable { case aes128gcm, jwe }

    func cipher(_ kind: Cipher) -> any PayloadCipher {
        kind == .aes128gcm
            ? AES128GCMContentCoding(keys: StaticKeyProvider(keys: ["k-2026": Data(repeating: 7, count: 16)], current: "k-2026"))
            : JWECompactCipher(keys: keys)
    }

    /// The plaintext of a body the server received, decrypted once.
    func opened(_ received: MockWebServer.RecordedRequest, _ kind: Cipher) async throws -> Data {
        let fields: [(String, String)] =
            kind == .aes128gcm ? [("Content-Encoding", received.header("Content-Encoding") ?? "")] : [("Content-Type", received.header("Content-Type") ?? "")]
        let response = HTTPResponse(status: .ok, headers: try HTTPFields(validating: fields), body: received.body)
        return try await cipher(kind).decrypt(response).body
    }

    /// An offline client with an outbox, the gate `monitor` drives and `cipher` below them; the
    /// outbox, to replay it.
    func offlineClient(encryptingWith cipher: any PayloadCipher, monitor: ManualMonitor) throws -> (Client, Outbox) {
        monitor.set(.unreachable)
        let outbox = try Outbox(path: database, transport: CurlTransport())
        var builder = Client.Builder(transport: CurlTransport())
        builder.add(OutboxMiddleware(outbox: outbox))
        builder.add(OfflineWhenUnreachable(monitor: monitor), at: .reachability)
        builder.add(PayloadEncryptionMiddleware(cipher: cipher))
        return (builder.build(), outbox)
    }

    @Test(arguments: Cipher.allCases)
    func anEncryptedWriteIsKeptSealedAndSentSealedOnce(_ kind: Cipher) async throws {
        // No body in the answer: a plain one to an encrypted write is refused by default.
        server.setHandler { _ in MockWebServer.Response(status: 204, body: "") }
        let monitor = ManualMonitor()
        let (client, outbox) = try offlineClient(encryptingWith: cipher(kind), monitor: monitor)
        var write = HTTPRequest(method: .post, url: server.url("/diary"), headers: ["Content-Type": "application/json"], body: .bytes(plaintext))
        write.usesOutbox = true
        #expect(try await client.send(write).status.code == 202)
        #expect(server.requests.isEmpty)
        // Before: the file held the plaintext the encryption below would have sealed.
        let kept = files()
        #expect(kept.count > 0)
        #expect(kept.range(of: plaintext) == nil, "the outbox holds the plaintext")
        #expect(kept.range(of: Data("met Bob".utf8)) == nil)

        monitor.set(.reachable(.wired))
        await outbox.replay(through: client)
        #expect(try outbox.pendingCount() == 0)
        let received = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        // Sealed once: one decryption gives the plaintext back.
        #expect(try await opened(received, kind) == plaintext)
        if kind == .aes128gcm { #expect(received.header("Content-Encoding") == "aes128gcm") }
    }

    /// A cipher that cannot say a body is already sealed: keeping the write would mean keeping
    /// its plaintext or sealing it twice, so the call fails with the reason and nothing is kept.
    @Test func aCipherThatCannotTellASealedBodyHasItsWritesRefused() async throws {
        struct Reversing: PayloadCipher {
            func encrypt(_ request: HTTPRequest) async throws -> HTTPRequest {
                var request = request
                request.body = .bytes(Data(try await request.body.collect().reversed()))
                return request
            }
            func isEncrypted(_ response: HTTPResponse) -> Bool { false }
            func decrypt(_ response: HTTPResponse) async throws -> HTTPResponse { response }
        }
        let (client, outbox) = try offlineClient(encryptingWith: Reversing(), monitor: ManualMonitor())
        var write = HTTPRequest(method: .post, url: server.url("/diary"), body: .bytes(plaintext))
        write.usesOutbox = true
        let error = await #expect(throws: SluiceError.self) { _ = try await client.send(write) }
        #expect(error?.code == .misconfigured)
        #expect(
            error?.message
                == "POST \(server.url("/diary")) cannot be kept to send later: its body is encrypted end to end by Reversing, which cannot tell a body "
                + "it already sealed (PayloadCipher.isSealed), so keeping the plaintext or sealing it twice are the choices; refused")
        #expect(try outbox.pendingCount() == 0)
        #expect(files().range(of: plaintext) == nil)
    }
}
