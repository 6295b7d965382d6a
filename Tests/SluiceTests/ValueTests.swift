import Foundation
import Sluice
import Testing

@Suite("HTTPMethod")
struct HTTPMethodTests {
    @Test func standardMethods() {
        #expect([HTTPMethod.get, .head, .post, .put, .patch, .delete, .options, .trace].map(\.rawValue)
            == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
        #expect(HTTPMethod(rawValue: "GET") == .get)
    }

    @Test(arguments: ["PROPFIND", "M-SEARCH", "get", "X!#$%&'*+-.^_`|~9"])
    func acceptsAnyToken(raw: String) {
        #expect(HTTPMethod(rawValue: raw)?.rawValue == raw)
    }

    @Test(arguments: ["", "GET /", "GET\r\n", "G\u{0}", "GÉT", "A(B)", "A:B", "A\tB", "A\"B"])
    func refusesNonTokens(raw: String) {
        #expect(HTTPMethod(rawValue: raw) == nil)
    }

    @Test func tokenMasksAgreeWithTheTokenRule() {
        // Every byte: the header-name check (masks) and the method check (rule) accept the same ones.
        for byte in UInt8(0)...255 {
            var fields = HTTPFields()
            let name = String(decoding: [0x41, byte], as: UTF8.self)
            let acceptedAsName = (try? fields.append(name: name, value: "v")) != nil
            let acceptedAsMethod = HTTPMethod(rawValue: name) != nil
            #expect(acceptedAsName == acceptedAsMethod, "byte \(byte)")
        }
    }

    @Test func idempotencyAndSafety() {
        #expect([HTTPMethod.get, .head, .options, .trace, .put, .delete].allSatisfy { $0.isIdempotent })
        #expect(!HTTPMethod.post.isIdempotent && !HTTPMethod.patch.isIdempotent)
        #expect(HTTPMethod.get.isSafe && !HTTPMethod.put.isSafe)
    }
}

@Suite("HTTPStatus")
struct HTTPStatusTests {
    @Test func classesAndPhrases() {
        let notFound: HTTPStatus = 404
        #expect(notFound.reasonPhrase == "Not Found")
        #expect(notFound.description == "404 Not Found")
        #expect(notFound.isClientError && !notFound.isSuccess && !notFound.isServerError && !notFound.isRedirect)
        #expect(HTTPStatus.ok.isSuccess)
        #expect(HTTPStatus(code: 299).isSuccess)
        #expect(HTTPStatus.found.isRedirect)
        #expect(HTTPStatus.badGateway.isServerError)
        #expect(HTTPStatus.continue.isInformational)
        #expect(HTTPStatus(code: 599).reasonPhrase == "")
        #expect(HTTPStatus(code: 200, reasonPhrase: "Fine") == .ok)
        #expect(HTTPStatus(code: 200, reasonPhrase: "Fine").description == "200 Fine")
    }
}

enum TagKey: RequestOptionKey { static let defaultValue: [String] = [] }
enum LabelKey: RequestOptionKey { static let defaultValue = "none" }
enum OtherLabelKey: RequestOptionKey { static let defaultValue = "other" }

extension HTTPRequest {
    var testTags: [String] {
        get { options[TagKey.self] }
        set { options[TagKey.self] = newValue }
    }
}

@Suite("RequestOptions")
struct RequestOptionsTests {
    let url = URL(string: "https://example.com")!

    @Test func typedKeysRoundTrip() {
        var request = HTTPRequest(url: url)
        #expect(request.testTags == [])
        #expect(!request.options.contains(TagKey.self))
        request.testTags = ["screen-a", "feed"]
        #expect(request.testTags == ["screen-a", "feed"])
        #expect(request.options.contains(TagKey.self))
        request.options[LabelKey.self] = "x"
        #expect(request.options[LabelKey.self] == "x")
        #expect(request.options.count == 2)
    }

    @Test func keysWithTheSameValueTypeAreDistinct() {
        var options = RequestOptions()
        options[LabelKey.self] = "mine"
        #expect(options[OtherLabelKey.self] == "other")
        #expect(options[LabelKey.self] == "mine")
    }

    @Test func removeRestoresDefault() {
        var options = RequestOptions()
        options[LabelKey.self] = "set"
        options.remove(LabelKey.self)
        #expect(options[LabelKey.self] == "none")
        #expect(!options.contains(LabelKey.self))
    }

    @Test func copiesAreIndependent() {
        var a = HTTPRequest(url: url)
        a.testTags = ["a"]
        var b = a
        b.testTags = ["b"]
        try? b.headers.set(name: "X", value: "1")
        #expect(a.testTags == ["a"])
        #expect(b.testTags == ["b"])
        #expect(a.headers["X"] == nil)
    }
}

@Suite("HTTPBody")
struct HTTPBodyTests {
    @Test func replayabilityAndLength() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-body-\(UUID().uuidString)")
        try Data(repeating: 7, count: 1234).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        #expect(HTTPBody.empty.isReplayable && HTTPBody.empty.length == 0)
        #expect(HTTPBody.bytes(Data([1, 2, 3])).length == 3)
        #expect(HTTPBody.file(file).isReplayable && HTTPBody.file(file).length == 1234)
        #expect(HTTPBody.file(URL(fileURLWithPath: "/nonexistent/sluice")).length == nil)
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.finish()
        #expect(!HTTPBody.stream(.oneShot(length: 5, stream)).isReplayable)
        #expect(HTTPBody.stream(.oneShot(length: 5, stream)).length == 5)
        #expect(HTTPBody.stream(.replayable(length: nil) { stream }).isReplayable)
    }

    @Test func oneShotStreamRefusesASecondRead() async throws {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.yield(Data("ab".utf8))
        continuation.yield(Data("cd".utf8))
        continuation.finish()
        let body = HTTPBody.stream(.oneShot(length: 4, stream))
        #expect(try await body.collect() == Data("abcd".utf8))
        await #expect {
            try await body.collect()
        } throws: { error in
            let error = try #require(error as? SluiceError)
            return error.code == .invalidBody && error.message
                == "the one-shot stream body was already read; make it with HTTPBody.Stream.replayable to send it again"
        }
    }

    @Test func replayableStreamCanBeReadTwice() async throws {
        let body = HTTPBody.stream(.replayable(length: 2) {
            AsyncThrowingStream { $0.yield(Data("hi".utf8)); $0.finish() }
        })
        #expect(try await body.collect() == Data("hi".utf8))
        #expect(try await body.collect() == Data("hi".utf8))
    }

    @Test func collectLimitGivesBodyTooLarge() async {
        await #expect {
            try await HTTPBody.bytes(Data(count: 11)).collect(limit: 10)
        } throws: { error in
            (error as? SluiceError)?.code == .bodyTooLarge
                && (error as? SluiceError)?.message == "the body is larger than the limit of 10 bytes"
        }
        let chunks = AsyncThrowingStream<Data, any Error> { $0.yield(Data(count: 6)); $0.yield(Data(count: 6)); $0.finish() }
        await #expect {
            try await HTTPBody.stream(.oneShot(length: nil, chunks)).collect(limit: 10)
        } throws: { ($0 as? SluiceError)?.code == .bodyTooLarge }
    }

    @Test func missingFileGivesInvalidBody() async {
        await #expect {
            try await HTTPBody.file(URL(fileURLWithPath: "/nonexistent/sluice-missing")).collect()
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody && error?.message.hasPrefix("cannot read the body file /nonexistent/sluice-missing") == true
        }
    }

    @Test func failingStreamGivesInvalidBodyWithCause() async {
        struct Broken: Error {}
        let chunks = AsyncThrowingStream<Data, any Error> { $0.yield(Data(count: 3)); $0.finish(throwing: Broken()) }
        await #expect {
            try await HTTPBody.stream(.oneShot(length: nil, chunks)).collect()
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody && error?.underlying is Broken
                && error?.message.hasPrefix("the body stream failed after 3 bytes") == true
        }
    }
}

@Suite("SluiceError")
struct SluiceErrorTests {
    @Test func codesMatchInCatchClauses() {
        do {
            throw SluiceError(.timedOut, "slow")
        } catch SluiceError.Code.timedOut {
            // matched
        } catch {
            Issue.record("did not match by code: \(error)")
        }
    }

    @Test func descriptionNamesStageCodeAndCause() {
        struct Cause: Error {}
        let error = SluiceError(.other, "it broke", underlying: Cause(), stage: .client)
        #expect(error.description.hasPrefix("[client] other: it broke (caused by "))
        #expect(SluiceError(.offline, "no network").description == "offline: no network")
        #expect(SluiceError(.offline, "no network").localizedDescription == "offline: no network")
    }

    @Test func attributionRules() {
        struct Mine: Error {}
        let stage = PipelineStage.client
        #expect(SluiceError.attributing(CancellationError(), to: stage) is CancellationError)
        let wrapped = SluiceError.attributing(Mine(), to: stage) as? SluiceError
        #expect(wrapped?.code == .other && wrapped?.stage == stage && wrapped?.underlying is Mine)
        let filled = SluiceError.attributing(SluiceError(.offline, "x"), to: stage) as? SluiceError
        #expect(filled?.stage == stage && filled?.code == .offline)
    }
}
