import Foundation

/// A response body read as it arrives: an `AsyncSequence` of byte chunks with backpressure. The
/// transport stops reading from the network while the chunks not yet read add up to the
/// high-water mark, so a slow reader never makes memory grow.
///
/// ```swift
/// import Foundation
/// import Sluice
///
/// let response = try await client.stream(try client.makeRequest(.get, "exports/huge.csv"))
/// for try await chunk in response.bodyStream! {
///     try handle.write(contentsOf: chunk)      // as slowly as you like
/// }
/// ```
///
/// Stopping early (leaving the loop, cancelling the task, or dropping the stream) ends the
/// transfer. A stream can be read once.
public final class ResponseBodyStream: AsyncSequence, Sendable {
    public typealias Element = Data

    private let pull: @Sendable () async throws -> Data?
    private let stop: @Sendable () -> Void
    /// Kept alive while the stream is: what produces it (a transport and its threads).
    private let owner: (any Sendable)?
    /// The stage whose errors this stream already names (set by ``attributingErrors(to:)``), so
    /// a stage that passes the stream on unchanged does not wrap it again.
    private let attributedStage: PipelineStage?

    /// A stream whose chunks `pull` returns (`nil` at the end), and which calls `stop` once when
    /// its reader goes away before the end. `owner` is kept alive as long as the stream: the
    /// transport whose threads feed it, so a body can be read after the transport's last other
    /// reference is gone.
    public convenience init(
        pull: @escaping @Sendable () async throws -> Data?, stop: @escaping @Sendable () -> Void = {}, owner: (any Sendable)? = nil
    ) {
        self.init(pull: pull, stop: stop, owner: owner, attributedStage: nil)
    }

    private init(
        pull: @escaping @Sendable () async throws -> Data?, stop: @escaping @Sendable () -> Void, owner: (any Sendable)?,
        attributedStage: PipelineStage?
    ) {
        self.pull = pull
        self.stop = stop
        self.owner = owner
        self.attributedStage = attributedStage
    }

    /// This stream with each `SluiceError` read from it that names no stage yet (one its
    /// latest stage threw) passed through `rename`: a stage that transforms a streamed body names
    /// the request in its errors, as it does when it fails before answering.
    package func renamingErrors(_ rename: @escaping @Sendable (SluiceError) -> SluiceError) -> ResponseBodyStream {
        mappingErrors(attributedStage: nil) { error in
            guard let sluice = error as? SluiceError, sluice.stage == nil else { return error }
            return rename(sluice)
        }
    }

    /// This stream with every error read from it attributed to `stage`, as the pipeline
    /// attributes the errors a stage throws before it answers (`SluiceError.attributing(_:to:)`):
    /// an error that already names a stage keeps it, so the innermost stage that failed is named.
    /// A link calls it on each streamed answer; a stream a stage passes on unchanged is not
    /// wrapped twice.
    func attributingErrors(to stage: PipelineStage) -> ResponseBodyStream {
        if attributedStage != nil { return self }
        return mappingErrors(attributedStage: stage) { SluiceError.attributing($0, to: stage) }
    }

    /// This stream with every error read from it passed through `transform`.
    private func mappingErrors(
        attributedStage: PipelineStage?, _ transform: @escaping @Sendable (any Error) -> any Error
    ) -> ResponseBodyStream {
        ResponseBodyStream(
            pull: { [self] in
                do {
                    return try await self.pull()
                } catch {
                    throw transform(error)
                }
            },
            stop: { [self] in self.stop() }, owner: nil, attributedStage: attributedStage)
    }

    /// A stream over bytes already in memory, as one chunk.
    public convenience init(_ data: Data) {
        let remaining = Locked<Data?>(data.isEmpty ? nil : data)
        self.init(pull: {
            remaining.withLock { chunk in
                defer { chunk = nil }; return chunk
            }
        })
    }

    deinit { stop() }

    /// The next chunk; `nil` at the end.
    public func next() async throws -> Data? { try await pull() }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: ResponseBodyStream

        public mutating func next() async throws -> Data? { try await stream.pull() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }

    /// Every remaining chunk, joined.
    ///
    /// - Throws: `.bodyTooLarge` past `limit` bytes; the stream's own error.
    public func collect(upTo limit: Int = 64 << 20) async throws -> Data {
        var data = Data()
        while let chunk = try await pull() {
            guard data.count + chunk.count <= limit else {
                throw SluiceError(.bodyTooLarge, "the streamed body is larger than the limit of \(limit) bytes")
            }
            data.append(chunk)
        }
        return data
    }

    /// A stream of this one's chunks after `transform`, with `end` called once when this one ends
    /// (with its error, or `nil`). The new stream reads this one only as fast as it is read.
    public func map(
        _ transform: @escaping @Sendable (Data) throws -> Data, end: @escaping @Sendable ((any Error)?) async throws -> Data? = { _ in nil }
    ) -> ResponseBodyStream {
        let ended = Locked(false)
        return ResponseBodyStream(
            pull: { [self] in
                while true {
                    if ended.withLock({ $0 }) { return nil }
                    let chunk: Data?
                    do {
                        chunk = try await self.pull()
                    } catch {
                        ended.withLock { $0 = true }
                        _ = try await end(error)
                        throw error
                    }
                    guard let chunk else {
                        ended.withLock { $0 = true }
                        if let last = try await end(nil), !last.isEmpty { return last }
                        return nil
                    }
                    let transformed = try transform(chunk)
                    if !transformed.isEmpty { return transformed }
                }
            },
            stop: { [self] in self.stop() })
    }

    /// This stream with `finish` called exactly once: with `nil` when it has been read to the end,
    /// with its error when reading it failed, or with `CancellationError` when its reader let it go
    /// before the end (so a stage that records a call when its body is over, a log line, a metric,
    /// a span, never waits for an end that will not come). `chunk` sees each chunk as it passes.
    package func observingEnd(
        chunk: @escaping @Sendable (Data) -> Void = { _ in }, finish: @escaping @Sendable ((any Error)?) -> Void
    ) -> ResponseBodyStream {
        let once = Once()
        let report: @Sendable ((any Error)?) -> Void = { error in if once.take() { finish(error) } }
        let mapped = map(
            { data in
                chunk(data)
                return data
            },
            end: { error in
                report(error)
                return nil
            })
        // Dropped before its end: this stream's stop runs first, then the mapped one's (and the
        // transfer's) when the closure holding it goes.
        return ResponseBodyStream(pull: { try await mapped.next() }, stop: { report(CancellationError()) })
    }

    /// A stream fed by a producer (a transport): `write` hands it chunks and says when it must
    /// wait; `onDemand` tells the producer to go on. `owner` is kept alive with the stream.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// let (stream, writer) = ResponseBodyStream.makeStream(highWater: 256 << 10)
    /// writer.onDemand { resumeReading() }
    /// if writer.write(chunk) == .full { pauseReading() }
    /// writer.finish()
    /// ```
    public static func makeStream(highWater: Int = 256 << 10, owner: (any Sendable)? = nil) -> (ResponseBodyStream, Writer) {
        let buffer = Buffer(highWater: highWater)
        let stream = ResponseBodyStream(pull: { try await buffer.next() }, stop: { buffer.abandon() }, owner: owner)
        return (stream, Writer(buffer: buffer))
    }

    /// The producer's side of ``ResponseBodyStream/makeStream(highWater:owner:)``.
    public struct Writer: Sendable {
        let buffer: Buffer

        /// What became of a chunk handed to ``write(_:)``.
        public enum Result: Sendable, Hashable {
            /// Taken.
            case accepted
            /// Not taken: the reader is behind. Hand it again after ``onDemand(_:)``'s call.
            case full
            /// Not taken: the reader went away. Stop producing.
            case abandoned
        }

        /// Hands over `chunk`.
        public func write(_ chunk: Data) -> Result { buffer.write(chunk) }

        /// Ends the stream, with `error` when the body could not be read whole.
        public func finish(throwing error: (any Error)? = nil) { buffer.finish(error) }

        /// Called (on the reader's task) when a write that was `.full` may be retried.
        public func onDemand(_ action: @escaping @Sendable () -> Void) { buffer.setOnDemand(action) }

        /// Called once when the reader goes away before the end.
        public func onAbandon(_ action: @escaping @Sendable () -> Void) { buffer.setOnAbandon(action) }
    }

    /// The chunks between a producer and the reader.
    final class Buffer: Sendable {
        private struct State {
            var chunks: [Data] = []
            var head = 0
            var bytes = 0
            var finished = false
            var error: (any Error)?
            var waiter: CheckedContinuation<Data?, any Error>?
            var producerWaiting = false
            var abandoned = false
            var onDemand: (@Sendable () -> Void)?
            var onAbandon: (@Sendable () -> Void)?
        }

        private let state = Locked(State())
        private let highWater: Int

        init(highWater: Int) { self.highWater = Swift.max(1, highWater) }

        func setOnDemand(_ action: @escaping @Sendable () -> Void) { state.withLock { $0.onDemand = action } }

        func setOnAbandon(_ action: @escaping @Sendable () -> Void) {
            let abandoned = state.withLock { state -> Bool in
                state.onAbandon = action
                return state.abandoned
            }
            if abandoned { action() }
        }

        func write(_ chunk: Data) -> Writer.Result {
            let (result, waiter) = state.withLock { state -> (Writer.Result, CheckedContinuation<Data?, any Error>?) in
                if state.abandoned || state.finished { return (.abandoned, nil) }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return (.accepted, waiter)
                }
                if state.bytes >= highWater {
                    state.producerWaiting = true
                    return (.full, nil)
                }
                state.chunks.append(chunk)
                state.bytes += chunk.count
                return (.accepted, nil)
            }
            waiter?.resume(returning: chunk)
            return result
        }

        func finish(_ error: (any Error)?) {
            let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
                guard !state.finished else { return nil }
                state.finished = true
                state.error = error
                defer { state.waiter = nil }
                return state.waiter
            }
            if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
        }

        func abandon() {
            let (action, waiter) = state.withLock { state -> ((@Sendable () -> Void)?, CheckedContinuation<Data?, any Error>?) in
                guard !state.abandoned else { return (nil, nil) }
                state.abandoned = true
                state.chunks = []
                state.bytes = 0
                defer { state.waiter = nil }
                return (state.finished ? nil : state.onAbandon, state.waiter)
            }
            waiter?.resume(throwing: CancellationError())
            action?()
        }

        func next() async throws -> Data? {
            // The common case: a chunk (or the end) is there already.
            if let ready = take(orWait: nil) { return try ready.get() }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                    if let ready = take(orWait: continuation) { continuation.resume(with: ready) }
                }
            } onCancel: {
                self.abandon()
            }
        }

        /// The next chunk or the end, when there is one (telling the producer to go on once the
        /// reader has caught up); otherwise `nil`, with `waiter` (if given) installed to be resumed
        /// by the next write, the end, or abandonment.
        private func take(orWait waiter: CheckedContinuation<Data?, any Error>?) -> Result<Data?, any Error>? {
            let (result, demand) = state.withLock { state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
                if state.abandoned { return (.failure(CancellationError()), nil) }
                if state.head < state.chunks.count {
                    let chunk = state.chunks[state.head]
                    state.chunks[state.head] = Data()  // the reader owns it now
                    state.head += 1
                    state.bytes -= chunk.count
                    if state.head == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.head = 0
                    } else if state.head >= 64, state.head * 2 >= state.chunks.count {
                        state.chunks.removeFirst(state.head)
                        state.head = 0
                    }
                    var demand: (@Sendable () -> Void)?
                    if state.producerWaiting, state.bytes <= highWater / 2 {
                        state.producerWaiting = false
                        demand = state.onDemand
                    }
                    return (.success(chunk), demand)
                }
                if state.finished { return (state.error.map { .failure($0) } ?? .success(nil), nil) }
                if let waiter { state.waiter = waiter }
                return (nil, nil)
            }
            demand?()
            return result
        }
    }
}
