import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceGzip
import SluiceLogging
import SluiceSigning
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceEncryption

@Suite("PayloadEncryptionMiddleware in the chain, against MockWebServer")
struct PayloadEncryptionMiddlewareTests {
    let server: MockWebServer
    let secret = Data((0..<16).map { UInt8($0 &+ 40) })
    var keys: StaticKeyProvider { StaticKeyProvider(keys: ["2026-12": secret], current: "2026-12") }

    init() throws { server = try MockWebServer() }

    func decrypt(_ message: Data) throws -> Data {
        let decoder = AES128GCMRecords.Decoder(keys: keys)
        var plain = try decoder.add(message)
        plain.append(try decoder.finish())
        return plain
    }

    func encrypt(_ plain: Data) throws -> Data {
        let encoder = try AES128GCMRecords.Encoder(secret: secret, keyID: Data("2026-12".utf8), recordSize: 4096, salt: try Crypto.randomBytes(16))
        var message = try encoder.add(plain)
        message.append(try encoder.finish())
        return message
    }

    /// Compressed, then encrypted, then signed: the signature's payload hash is the hash of the
    /// bytes the server received, which decrypt and then gunzip to the body.
    @Test func gzipThenEncryptionThenSigningOnTheBytesReceived() async throws {
        server.enqueue(.init(status: 204, body: ""))
        var builder = Client.Builder(transport: CurlTransport())
        builder.environment = [:]
        builder.add(
            SigningMiddleware(
                signer: AWSSigV4Signer(
                    accessKeyID: "AKID", secretAccessKey: "SECRET", sessionToken: nil, region: "eu-west-1", service: "execute-api",
                    options: .init(addsContentSHA256Header: true))))
        builder.add(PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys)))
        builder.add(GzipMiddleware(configuration: .init(requestCompression: .always)))
        #expect(
            builder.build().pipeline.middlewares.map { "\(type(of: $0))" }.suffix(3) == ["GzipMiddleware", "PayloadEncryptionMiddleware", "SigningMiddleware"])
        let body = Data(String(repeating: "{\"walrus\": true} ", count: 400).utf8)
        var request = HTTPRequest(method: .post, url: server.url("/upload"), body: .bytes(body))
        try request.headers.set(name: "Content-Type", value: "application/json")
        _ = try await builder.build().send(request)

        let received = try #require(server.requests.first)
        #expect(received.header("Content-Encoding") == "gzip, aes128gcm")
        #expect(try received.header("X-Amz-Content-Sha256").map { Data(hex: $0) } == Digest.sha256.hash(received.body))
        #expect(received.header("Authorization")?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKID/") == true)
        #expect(try GzipCodec.decompress(try decrypt(received.body), format: .gzip) == body)
    }

    /// An encrypted answer is decrypted, marked no-store unless allowed, and a request can opt out
    /// either way.
    @Test func answersAreDecryptedAndKeptOutOfCachesUnlessAllowed() async throws {
        let plain = Data("{\"secret\": \"plans\"}".utf8)
        for _ in 0..<3 { server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm")], body: try encrypt(plain))) }
        let pipeline = Pipeline(middlewares: [PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))], transport: CurlTransport())
        let response = try await pipeline.send(HTTPRequest(url: server.url("/plans")))
        #expect(response.body == plain)
        #expect(response.headers["Content-Encoding"] == nil)
        #expect(response.headers.values(for: "Cache-Control") == ["no-store"])
        #expect(server.requests[0].header("Content-Encoding") == nil)  // a GET has no body to encrypt

        var keep = HTTPRequest(url: server.url("/plans"))
        keep.decryptsResponse = .never
        let sealed = try await pipeline.send(keep)
        #expect(sealed.headers["Content-Encoding"] == "aes128gcm")
        #expect(try decrypt(sealed.body) == plain)

        let caching = Pipeline(
            middlewares: [PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys), configuration: .init(cachesDecryptedResponses: true))],
            transport: CurlTransport())
        #expect(try await caching.send(HTTPRequest(url: server.url("/plans"))).headers["Cache-Control"] == nil)
    }

    /// A HAR file keeps neither body of an encrypted exchange, only a note saying why.
    @Test func recordersLeaveTheBodiesOut() async throws {
        let answer = Data("{\"plans\": \"world domination\"}".utf8)
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm")], body: try encrypt(answer)))
        let recorder = HARRecorder()
        let pipeline = Pipeline(
            middlewares: [HARRecorderMiddleware(recorder: recorder), PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))],
            transport: CurlTransport())
        let response = try await pipeline.send(HTTPRequest(method: .post, url: server.url("/plans"), body: .bytes(Data("my secret question".utf8))))
        #expect(response.body == answer && response.bodiesAreConfidential)
        let scratch = try TemporaryDirectory(prefix: "sluice-encryption")
        let file = URL(fileURLWithPath: scratch.filePath("exchange.har"))
        try recorder.write(to: file)
        let har = try String(contentsOf: file, encoding: .utf8)
        #expect(!har.contains("world domination") && !har.contains("my secret question"))
        #expect(har.contains("bodies not recorded: they went over the wire end-to-end encrypted"))
    }

    /// Issue 27, item 3: codings are undone last first. `aes128gcm, gzip` would have to be
    /// unzipped before it is decrypted, which this chain (gzip outside encryption) cannot: refused
    /// with the list named, never handed over as a 200 of ciphertext.
    @Test func aCodingListInAnOrderTheChainCannotUndoIsRefused() async throws {
        let ciphertext = try encrypt(Data("secret".utf8))
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm, gzip")], body: try GzipCodec.compress(ciphertext)))
        var builder = Client.Builder(transport: CurlTransport())
        builder.environment = [:]
        builder.add(PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys)))
        builder.add(GzipMiddleware())
        let error = await #expect(throws: SluiceError.self) { _ = try await builder.build().send(HTTPRequest(url: server.url("/doc"))) }
        #expect(error?.code == .invalidResponse)
        #expect(
            error?.message.hasSuffix(
                #"its Content-Encoding "aes128gcm, gzip" lists aes128gcm before gzip: codings are undone last first, and this chain decrypts "#
                    + "before it undoes gzip, so the body cannot be read; refused") == true, "\(String(describing: error))")
        // The order the chain can undo (`gzip, aes128gcm`: decrypt, then gunzip) is read.
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "gzip, aes128gcm")], body: try encrypt(try GzipCodec.compress(Data("secret".utf8)))))
        #expect(try await builder.build().send(HTTPRequest(url: server.url("/doc"))).text == "secret")
    }

    /// Issue 27, item 3: a request's Content-Encoding always describes its body. A JWE cannot say
    /// its plaintext was gzipped, so gzip then JWE is refused before anything is sent (it sent a
    /// JWE labelled gzip); a JWE answer that also lists a coding is refused.
    @Test func aJWEBodyIsNeverLabelledWithACodingItDoesNotHave() async throws {
        let jwe = JWECompactCipher(keys: StaticKeyProvider(keys: ["k": Data(repeating: 7, count: 32)], current: "k"))
        var builder = Client.Builder(transport: CurlTransport())
        builder.environment = [:]
        builder.add(PayloadEncryptionMiddleware(cipher: jwe))
        builder.add(GzipMiddleware(configuration: .init(requestCompression: .always)))
        let client = builder.build()
        let error = await #expect(throws: SluiceError.self) {
            _ = try await client.send(HTTPRequest(method: .post, url: server.url("/jwe"), body: .bytes(Data(String(repeating: "a", count: 2000).utf8))))
        }
        #expect(error?.code == .misconfigured)
        #expect(error?.message.contains(#"has Content-Encoding "gzip", and a JWE body cannot say so"#) == true, "\(String(describing: error))")
        #expect(server.requests.isEmpty)

        let sealed = try await jwe.encrypt(HTTPRequest(method: .post, url: server.url("/x"), body: .bytes(Data("answer".utf8))))
        guard case .bytes(let compact) = sealed.body else { throw CancellationError() }
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/jose"), ("Content-Encoding", "br")], body: compact))
        let answerError = await #expect(throws: SluiceError.self) { _ = try await client.send(HTTPRequest(url: server.url("/jwe"))) }
        #expect(answerError?.code == .invalidResponse)
        #expect(
            answerError?.message.hasSuffix(
                #"its JWE body also has Content-Encoding "br", which would have to be undone before decrypting, and this chain decrypts first; refused"#)
                == true)
    }

    /// Issue 27, items 3 and 7: a plain answer to an encrypted request is not marked confidential;
    /// the request's plaintext is still kept out of the HAR file and the log, and so is a decrypted
    /// answer's.
    @Test func confidentialityFlagsSayWhichBodyWasEncrypted() async throws {
        let recorder = HARRecorder()
        let lines = Locked<[String]>([])
        let logger = LoggingMiddleware(level: .body, sink: .closure(isTerminal: false) { line in lines.withLock { $0.append(line) } })
        let pipeline = Pipeline(
            middlewares: [
                logger, HARRecorderMiddleware(recorder: recorder),
                PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys), configuration: .init(requiresEncryptedResponses: false)),
            ],
            transport: CurlTransport())
        server.enqueue(.init(status: 200, body: "plain public answer"))
        let plain = try await pipeline.send(HTTPRequest(method: .post, url: server.url("/q"), body: .bytes(Data("my secret question".utf8))))
        #expect(!plain.bodiesAreConfidential)
        #expect(plain.requestBodyWasConfidential)
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm")], body: try encrypt(Data("world domination".utf8))))
        let secret = try await pipeline.send(HTTPRequest(method: .post, url: server.url("/q"), body: .bytes(Data("my other question".utf8))))
        #expect(secret.bodiesAreConfidential && secret.requestBodyWasConfidential)

        let scratch = try TemporaryDirectory(prefix: "sluice-encryption")
        let file = URL(fileURLWithPath: scratch.filePath("exchange.har"))
        try recorder.write(to: file)
        let har = try String(contentsOf: file, encoding: .utf8)
        #expect(har.contains("plain public answer"))
        #expect(har.contains("request body not recorded: it went over the wire end-to-end encrypted"))
        let log = lines.withLock { $0.joined(separator: "\n") }
        for text in [har, log] {
            #expect(!text.contains("my secret question") && !text.contains("my other question") && !text.contains("world domination"))
        }
        #expect(log.contains("plain public answer"))
        #expect(log.contains("(body not shown: it went over the wire end-to-end encrypted)"))
        #expect(log.contains("(body not shown: it came over the wire end-to-end encrypted)"))
    }

    /// The cache (outside encryption) sees the plaintext answer: it keeps it only when allowed.
    @Test func theCacheKeepsADecryptedAnswerOnlyWhenAllowed() async throws {
        let answer = Data("{\"plans\": 1}".utf8)
        for allowed in [false, true] {
            let server = try MockWebServer()
            server.setHandler { _ in
                MockWebServer.Response(
                    status: 200, headers: [("Content-Encoding", "aes128gcm"), ("Cache-Control", "max-age=600")], body: (try? self.encrypt(answer)) ?? Data())
            }
            var builder = Client.Builder(transport: CurlTransport())
            builder.environment = [:]
            builder.add(CacheMiddleware(store: MemoryCacheStore()))
            builder.add(
                PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys), configuration: .init(cachesDecryptedResponses: allowed)))
            let client = builder.build()
            for _ in 0..<2 { #expect(try await client.send(HTTPRequest(url: server.url("/plans"))).body == answer) }
            #expect(server.requests.count == (allowed ? 1 : 2), "caching allowed: \(allowed)")
        }
    }

    @Test func aRequestCanSendItsBodyInTheClear() async throws {
        server.enqueue(.init(status: 200, body: "ok"), .init(status: 204, body: ""))
        let pipeline = Pipeline(middlewares: [PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))], transport: CurlTransport())
        var plain = HTTPRequest(method: .post, url: server.url("/public"), body: .bytes(Data("hello".utf8)))
        plain.encryptsBody = .never
        _ = try await pipeline.send(plain)
        #expect(server.requests[0].body == Data("hello".utf8) && server.requests[0].header("Content-Encoding") == nil)
        _ = try await pipeline.send(HTTPRequest(method: .post, url: server.url("/private"), body: .bytes(Data("hello".utf8))))
        #expect(try decrypt(server.requests[1].body) == Data("hello".utf8))
    }

    /// RFC 8188 §4: a recipient that relies on the coding refuses a plain answer. A success with a
    /// body to an encrypted request must be encrypted; an error answer passes, and so does any
    /// answer when the configuration allows it.
    @Test func aPlainSuccessAnswerToAnEncryptedRequestIsRefused() async throws {
        let middleware = PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))
        let pipeline = Pipeline(middlewares: [middleware], transport: CurlTransport())
        let request = HTTPRequest(method: .post, url: server.url("/private"), body: .bytes(Data("hello".utf8)))
        server.enqueue(.init(status: 200, body: "stripped"))
        let error = await #expect(throws: SluiceError.self) { _ = try await pipeline.send(request) }
        #expect(error?.code == .invalidResponse)
        #expect(
            error?.message
                == "POST \(server.url("/private").absoluteString) went out encrypted, but its answer (200 OK) is not in the cipher's format: "
                + "refused (requiresEncryptedResponses)")
        #expect(error?.response?.status.code == 200)

        // An encrypted answer is read; a gateway's plain 401 and a body-less 204 pass.
        var encrypted = MockWebServer.Response(status: 200, body: "")
        encrypted.body = try encrypt(Data("secret answer".utf8))
        encrypted.headers = [("Content-Encoding", "aes128gcm")]
        server.enqueue(encrypted, .init(status: 401, body: "log in"), .init(status: 204, body: ""))
        #expect(try await pipeline.send(request).body == Data("secret answer".utf8))
        #expect(try await pipeline.send(request).status.code == 401)
        #expect(try await pipeline.send(request).status.code == 204)

        // Allowed by the configuration, or not encrypted to begin with: the plain answer stands.
        let lenient = Pipeline(
            middlewares: [PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys), configuration: .init(requiresEncryptedResponses: false))],
            transport: CurlTransport())
        server.enqueue(.init(status: 200, body: "plain"), .init(status: 200, body: "plain"))
        #expect(try await lenient.send(request).body == Data("plain".utf8))
        var clear = request
        clear.encryptsBody = .never
        #expect(try await pipeline.send(clear).body == Data("plain".utf8))
    }

    /// HEAD answers and 304s describe the body they would have: `Content-Encoding: aes128gcm` with
    /// no bytes is never a decryption error.
    @Test func bodylessAnswersAreNeverDecrypted() async throws {
        let pipeline = Pipeline(middlewares: [PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))], transport: CurlTransport())
        server.setHandler { request in
            var response = MockWebServer.Response(status: request.method == "HEAD" ? 200 : 304, body: "")
            response.headers = [("Content-Encoding", "aes128gcm"), ("ETag", "\"v1\"")]
            return response
        }
        let head = try await pipeline.send(HTTPRequest(method: .head, url: server.url("/doc")))
        #expect(head.status.code == 200 && head.body.isEmpty)
        #expect(head.headers["Content-Encoding"] == "aes128gcm")
        var conditional = HTTPRequest(url: server.url("/doc"))
        try conditional.headers.set(name: "If-None-Match", value: "\"v1\"")
        let notModified = try await pipeline.send(conditional)
        #expect(notModified.status.code == 304 && notModified.body.isEmpty)
    }

    /// A file body is encrypted record by record as it is sent, with the length announced.
    @Test func aFileBodyIsEncryptedAsItIsSent() async throws {
        server.enqueue(.init(status: 204, body: ""))
        let scratch = try TemporaryDirectory(prefix: "sluice-encryption")
        let file = URL(fileURLWithPath: scratch.filePath("upload.bin"))
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 17) })
        try content.write(to: file)
        let pipeline = Pipeline(middlewares: [PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))], transport: CurlTransport())
        _ = try await pipeline.send(HTTPRequest(method: .put, url: server.url("/file"), body: .file(file)))
        let received = try #require(server.requests.first)
        let expectedLength = try #require(AES128GCMRecords.encryptedLength(plaintext: Int64(content.count), recordSize: 4096, keyID: Data("2026-12".utf8)))
        #expect(received.header("Content-Length") == String(expectedLength))
        #expect(try decrypt(received.body) == content)
    }

    @Test func configurationMistakesAreTypedErrorsBeforeAnythingIsSent() async throws {
        let request = HTTPRequest(method: .post, url: server.url("/x"), body: .bytes(Data("hi".utf8)))
        let noCurrent = AES128GCMContentCoding(keys: StaticKeyProvider(keys: ["a": secret], current: "b"))
        let tiny = AES128GCMContentCoding(keys: keys, configuration: .init(recordSize: 17))
        let missingFile = HTTPRequest(method: .put, url: server.url("/x"), body: .file(URL(fileURLWithPath: "/nonexistent/sluice-upload.bin")))
        for (coding, request, code, message) in [
            (noCurrent, request, SluiceError.Code.misconfigured, #"the current key id "b" has no key"#),
            (tiny, request, .misconfigured, "an aes128gcm record size is 18 to 2^32 − 1 bytes (RFC 8188 §2.1), not 17"),
            (AES128GCMContentCoding(keys: keys), missingFile, .invalidBody, "cannot read the size of the body file /nonexistent/sluice-upload.bin"),
        ] {
            do {
                _ = try await coding.encrypt(request)
                Issue.record("encrypted despite: \(message)")
            } catch let error as SluiceError {
                #expect(error.code == code && error.message == message, "\(error.message)")
            }
        }
        #expect(server.requests.isEmpty)
    }

    @Test func aCorruptAnswerIsAnErrorNamingTheRequestNeverTheKey() async throws {
        var sealed = try encrypt(Data("top secret".utf8))
        sealed[sealed.count - 1] ^= 0x01
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm")], body: sealed))
        let pipeline = Pipeline(middlewares: [PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))], transport: CurlTransport())
        do {
            _ = try await pipeline.send(HTTPRequest(url: server.url("/plans")))
            Issue.record("a changed record was accepted")
        } catch let error as SluiceError {
            #expect(error.code == .invalidResponse)
            #expect(
                error.message.hasSuffix(
                    "aes128gcm body: record 1 does not authenticate: the key is wrong, or the bytes were changed or cut short"))
            #expect(error.message.contains("/plans") && !error.message.contains(secret.base64EncodedString()))
        }
    }

    /// Issue 27, item 3: an answer decrypted as it is read fails as a buffered one does, naming
    /// the request and the stage (before: the bare "aes128gcm body: …" with no stage), with the
    /// answer's head attached; an error of the transport's keeps naming the transport.
    @Test func aStreamedCorruptAnswerNamesTheRequestAndTheStage() async throws {
        var sealed = try encrypt(Data(repeating: 0x61, count: 10_000))
        sealed[sealed.count - 1] ^= 0x01
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm")], body: sealed))
        let pipeline = Pipeline(
            middlewares: [GzipMiddleware(), PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys))], transport: CurlTransport())
        var request = HTTPRequest(url: server.url("/plans/streamed"))
        request.streamsResponseBody = true
        let response = try await pipeline.send(request)
        let stream = try #require(response.bodyStream)
        let error = await #expect(throws: SluiceError.self) { _ = try await stream.collect() }
        #expect(error?.code == .invalidResponse)
        #expect(error?.stage?.is(PayloadEncryptionMiddleware.self) == true)
        #expect(
            error?.message
                == "GET \(server.url("/plans/streamed")): aes128gcm body: record 3 does not authenticate: the key is wrong, or the bytes were changed "
                + "or cut short")
        #expect(error?.response?.status == .ok)
        #expect(error.map { "\($0)" }?.hasPrefix("[middleware PayloadEncryptionMiddleware] invalidResponse: GET ") == true)

        // A body cut short on the wire: the transport's error, named as the transport's.
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm")], body: sealed).with(fault: .disconnectAfterBodyBytes(5000)))
        let cut = try #require(try await pipeline.send(request).bodyStream)
        let cutError = await #expect(throws: SluiceError.self) { _ = try await cut.collect() }
        #expect(cutError?.stage?.is(CurlTransport.self) == true)
    }
}

/// 100 MiB each way, with the reference implementation on the other side, in a process of its
/// own so its peak memory is the transfer's. Records of 1 MiB: http-ece joins its output with
/// `+=` record after record, which takes hours for 25,600 records of 4 KiB and seconds for 100 of
/// 1 MiB. Sluice holds about one record at a time either way.
@Suite("aes128gcm, 100 MiB each way with flat memory")
struct LargeEncryptedTransferTests {
    static let secret = Data((0..<16).map { UInt8($0 &* 3 &+ 100) })
    static let size = 100 << 20
    static let recordSize = 1 << 20

    /// A 100 MiB file whose every MiB differs.
    static func makeFile(in scratch: TemporaryDirectory) throws -> URL {
        let file = URL(fileURLWithPath: scratch.filePath("big.bin"))
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        var block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        for mebibyte in 0..<(size >> 20) {
            block.replaceSubrange(0..<8, with: withUnsafeBytes(of: UInt64(mebibyte).bigEndian) { Data($0) })
            try handle.write(contentsOf: block)
        }
        try handle.close()
        return file
    }

    static func probe(_ arguments: [String]) async throws -> [String: Int] {
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-transfer-probe")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SLUICE_PROBE_SECRET"] = secret.base64EncodedString()
        environment["SLUICE_PROBE_RECORD_SIZE"] = String(recordSize)
        environment["ASAN_OPTIONS"] = "quarantine_size_mb=8:" + (environment["ASAN_OPTIONS"] ?? "")
        process.environment = environment
        let (data, status) = try await Blocking.output(of: process)
        #expect(status == 0)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
    }

    static var keyText: String { Base64URL.encode(secret) }

    @Test func aFileSluiceEncryptsAsItSendsIsReadByHTTPECE() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-encryption")
        let file = try Self.makeFile(in: scratch)
        let server = try MockWebServer(recordedBodyLimit: 110 << 20)
        server.setHandler { _ in .init(status: 204, body: "") }
        let report = try await Self.probe(["encrypted-upload", server.url("/big").absoluteString, file.path])
        print("100 MiB encrypted upload: peak resident \(report["peakResidentKiB"] ?? -1) KiB")
        #expect(report["status"] == 204)
        let received = try #require(server.requests.first)
        #expect(received.header("Content-Encoding") == "aes128gcm")
        #expect(received.bodyLength == received.body.count && received.header("Content-Length") == String(received.bodyLength))
        let plain = try await ReferenceImplementations.run("ece-decrypt", [Self.keyText], input: received.body)
        #expect(plain == (try Data(contentsOf: file)))
        #expect((report["peakResidentKiB"] ?? .max) < MemoryBounds.scaled(64 * 1024))
    }

    @Test func aBodyHTTPECEEncryptedIsDecryptedAsItArrives() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-encryption")
        let file = try Self.makeFile(in: scratch)
        let sealed = try await ReferenceImplementations.run("ece-encrypt", [Self.keyText, "probe", String(Self.recordSize)], input: try Data(contentsOf: file))
        let server = try MockWebServer(recordedBodyLimit: 4096)
        server.enqueue(.init(status: 200, headers: [("Content-Encoding", "aes128gcm")], body: sealed))
        let destination = scratch.filePath("plain.bin")
        let report = try await Self.probe(["encrypted-stream", server.url("/big").absoluteString, destination])
        print("100 MiB encrypted download: peak resident \(report["peakResidentKiB"] ?? -1) KiB")
        #expect(report["status"] == 200 && report["bytes"] == Self.size)
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == (try Data(contentsOf: file)))
        #expect((report["peakResidentKiB"] ?? .max) < MemoryBounds.scaled(64 * 1024))
    }
}
