import Foundation
import Sluice
import Testing

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
            return error.code == .invalidBody
                && error.message
                    == "the one-shot stream body was already read; make it with HTTPBody.Stream.replayable to send it again"
        }
    }

    @Test func replayableStreamCanBeReadTwice() async throws {
        let body = HTTPBody.stream(
            .replayable(length: 2) {
                AsyncThrowingStream {
                    $0.yield(Data("hi".utf8)); $0.finish()
                }
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
        let chunks = AsyncThrowingStream<Data, any Error> {
            $0.yield(Data(count: 6)); $0.yield(Data(count: 6)); $0.finish()
        }
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
        let chunks = AsyncThrowingStream<Data, any Error> {
            $0.yield(Data(count: 3)); $0.finish(throwing: Broken())
        }
        await #expect {
            try await HTTPBody.stream(.oneShot(length: nil, chunks)).collect()
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidBody && error?.underlying is Broken
                && error?.message.hasPrefix("the body stream failed after 3 bytes") == true
        }
    }

    @Test func collectingAStreamedBodyPastItsLimitIsBodyTooLarge() async throws {
        let stream = ResponseBodyStream(Data(count: 2_000))
        await #expect {
            _ = try await stream.collect(upTo: 1_000)
        } throws: { error in
            (error as? SluiceError)?.code == .bodyTooLarge
                && (error as? SluiceError)?.message == "the streamed body is larger than the limit of 1000 bytes"
        }
        #expect(try await ResponseBodyStream(Data(count: 1_000)).collect(upTo: 1_000).count == 1_000)
    }
}
