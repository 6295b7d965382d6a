import CHiredis
import Dispatch
import Foundation
import Sluice

/// A few blocking hiredis connections, each owned by a serial queue, and what the store knows
/// about Redis's health (shared by the cache's and the rate limit's stores): after a failure,
/// calls fail at once for the retry interval, then one tries again. A command never runs on the
/// caller's thread, so a transport's event thread is never held by Redis (THREATS §15); a command
/// queued behind others fails at once when an earlier one found Redis down, or when its wait for
/// the connection has passed the command timeout, so a stalled Redis fails every queued caller
/// within about one timeout, not one timeout each.
package final class RedisConnectionPool: Sendable {
    /// One connection and the queue that alone touches it.
    private final class Slot: @unchecked Sendable {
        // @unchecked: `context` is read and written only by blocks running on `queue`, a serial
        // queue, so one at a time; `queue` never changes.
        let queue: DispatchQueue
        var context: UnsafeMutablePointer<redisContext>?

        init(index: Int) { queue = DispatchQueue(label: "sluice-redis-\(index)") }

        deinit { if let context { redisFree(context) } }
    }

    private struct Health {
        var next = 0
        var downUntil: ContinuousClock.Instant?
        var outageReported = false
    }

    private let configuration: RedisConnectionSettings
    private let slots: [Slot]
    private let health = Locked(Health())

    package init(configuration: RedisConnectionSettings) {
        self.configuration = configuration
        slots = (0..<max(1, configuration.poolSize)).map(Slot.init)
    }

    /// Runs one command: `arguments`, then `data` as one binary argument, then `then`.
    package func run(_ arguments: [String], data: Data? = nil, then tail: [String] = []) async throws -> RedisReply {
        let slot = try health.withLock { health -> Slot in
            if let until = health.downUntil, ContinuousClock.now < until {
                throw RedisError("Redis at \(configuration.host):\(configuration.port) is unreachable; \(configuration.whileDown)")
            }
            health.next += 1
            return slots[health.next % slots.count]
        }
        let parts = arguments.map { Data($0.utf8) } + (data.map { [$0] } ?? []) + tail.map { Data($0.utf8) }
        let queued = ContinuousClock.now
        // A call that is cancelled (its deadline passed) stops waiting at once; the command
        // finishes on its queue within the command timeout, and its reply is dropped.
        let waiter = Locked(Waiter.waiting(nil))
        let result: Result<RedisReply, RedisError> = try await withTaskCancellationHandler {
            try await ThreadSanitizer.withContinuation { continuation in
                let cancelled = waiter.withLock { state -> Bool in
                    if case .cancelled = state { return true }
                    state = .waiting(continuation)
                    return false
                }
                if cancelled { return ThreadSanitizer.resume(continuation, with: .failure(CancellationError())) }
                slot.queue.async { [self] in
                    let result = refusal(queuedAt: queued).map { .failure($0) } ?? execute(parts, on: slot)
                    if let continuation = waiter.withLock({ $0.finish() }) { ThreadSanitizer.resume(continuation, with: .success(result)) }
                }
            }
        } onCancel: {
            let continuation = waiter.withLock { state -> UnsafeContinuation<Result<RedisReply, RedisError>, any Error>? in
                defer { state = .cancelled }
                return state.finish()
            }
            if let continuation { ThreadSanitizer.resume(continuation, with: .failure(CancellationError())) }
        }
        return try result.get()
    }

    /// A waiting caller: its continuation, until it is resumed once (with the reply, or by its cancellation).
    private enum Waiter {
        case waiting(UnsafeContinuation<Result<RedisReply, RedisError>, any Error>?)
        case cancelled
        case done

        /// The continuation to resume, at most once.
        mutating func finish() -> UnsafeContinuation<Result<RedisReply, RedisError>, any Error>? {
            guard case .waiting(let continuation) = self else { return nil }
            self = .done
            return continuation
        }
    }

    /// Why a command that waited for its connection since `queued` fails without being sent: an
    /// earlier command found Redis down meanwhile, or the wait passed the command timeout (the
    /// caller counts it against the same limit).
    private func refusal(queuedAt queued: ContinuousClock.Instant) -> RedisError? {
        let now = ContinuousClock.now
        if let until = health.withLock({ $0.downUntil }), now < until {
            return RedisError("Redis at \(configuration.host):\(configuration.port) is unreachable; \(configuration.whileDown)")
        }
        let waited = queued.duration(to: now)
        guard waited > configuration.commandTimeout.clampedWait else { return nil }
        return RedisError(
            "Redis at \(configuration.host):\(configuration.port): the command waited \(Int(waited.timeInterval * 1000)) ms for a connection, "
                + "past the command timeout (\(configuration.name).commandTimeout)")
    }

    /// On `slot.queue`: connects if needed, sends, reads the reply.
    private func execute(_ parts: [Data], on slot: Slot) -> Result<RedisReply, RedisError> {
        if slot.context == nil {
            switch connect() {
            case .success(let context): slot.context = context
            case .failure(let error): return .failure(outage(error))
            }
        }
        guard let context = slot.context else { return .failure(RedisError("no connection")) }
        let reply: RedisReply
        switch command(context, parts) {
        case .success(let value): reply = value
        case .failure(let error):
            redisFree(context)
            slot.context = nil
            return .failure(outage(error))
        }
        recovered()
        if case .error(let text) = reply { return .failure(RedisError("Redis refused \(String(decoding: parts[0], as: UTF8.self)): \(text)")) }
        return .success(reply)
    }

    private func connect() -> Result<UnsafeMutablePointer<redisContext>, RedisError> {
        let timeout = Self.timeval(configuration.connectTimeout)
        guard let port = Int32(exactly: configuration.port), (1...65_535).contains(port) else {
            return .failure(
                RedisError(
                    "Redis at \(configuration.host):\(configuration.port): the port is not a TCP port (\(configuration.name).port, 1...65535)"))
        }
        guard let context = redisConnectWithTimeout(configuration.host, port, timeout) else {
            return .failure(RedisError("Redis at \(configuration.host):\(configuration.port) is unreachable: out of memory"))
        }
        if context.pointee.err != 0 {
            let reason = Self.errorText(context)
            redisFree(context)
            return .failure(RedisError("Redis at \(configuration.host):\(configuration.port) is unreachable: \(reason)"))
        }
        redisSetTimeout(context, Self.timeval(configuration.commandTimeout))
        return .success(context)
    }

    /// Marks Redis down for the retry interval and reports the outage once.
    private func outage(_ error: RedisError) -> RedisError {
        let report = health.withLock { health -> Bool in
            health.downUntil = .after(configuration.retryInterval)
            defer { health.outageReported = true }
            return !health.outageReported
        }
        if report { configuration.log("\(error.message); \(configuration.whileDown) until Redis answers again") }
        return error
    }

    private func recovered() {
        let report = health.withLock { health -> Bool in
            health.downUntil = nil
            defer { health.outageReported = false }
            return health.outageReported
        }
        if report { configuration.log("Redis at \(configuration.host):\(configuration.port) answers again; \(configuration.whenBack)") }
    }

    /// Sends `parts` as one command and reads its reply, within `configuration.commandTimeout`
    /// for the whole exchange (a reply that trickles in a byte at a time cannot outlast it) and
    /// `configuration.maxReplySize` bytes: everything Redis sends is treated as a hostile peer's.
    /// A failure leaves the connection in an unknown state: the caller drops it.
    private func command(_ context: UnsafeMutablePointer<redisContext>, _ parts: [Data]) -> Result<RedisReply, RedisError> {
        let deadline = ContinuousClock.Instant.after(configuration.commandTimeout)
        let copies = parts.map { part -> UnsafeMutableRawBufferPointer in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, part.count), alignment: 1)
            _ = part.copyBytes(to: buffer.bindMemory(to: UInt8.self))
            return buffer
        }
        defer { for copy in copies { copy.deallocate() } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        var lengths = parts.map(\.count)
        let origin = "Redis at \(configuration.host):\(configuration.port)"
        let verb = String(decoding: parts[0], as: UTF8.self)
        guard redisAppendCommandArgv(context, Int32(parts.count), &pointers, &lengths) == REDIS_OK else {
            return .failure(RedisError("\(origin) failed: \(Self.errorText(context))"))
        }
        // hiredis writes with write(2): to a connection Redis has reset, that raises SIGPIPE, which
        // would end the app. Blocked, the write fails with EPIPE and the store is bypassed.
        let written = BrokenPipe.withoutSignal {
            var done: Int32 = 0
            while done == 0 {
                guard redisBufferWrite(context, &done) == REDIS_OK else { return false }
            }
            return true
        }
        guard written else { return .failure(RedisError("\(origin) failed: \(Self.errorText(context))")) }
        var received = 0
        var scanner = RedisReplyScanner(limit: configuration.maxReplySize, setting: configuration.name + ".maxReplySize")
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReplyFromReader(context, &raw) == REDIS_OK else {
                return .failure(RedisError("\(origin) sent a reply hiredis refuses: \(Self.errorText(context))"))
            }
            if let raw {
                defer { freeReplyObject(raw) }
                return .success(RedisReply(raw.assumingMemoryBound(to: redisReply.self)))
            }
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = Int32(clamping: max(0, left.wholeMilliseconds))
            var ready = pollfd(fd: context.pointee.fd, events: Int16(POLLIN), revents: 0)
            let polled = left > .zero ? poll(&ready, 1, max(1, milliseconds)) : 0
            if polled < 0, errno == EINTR { continue }
            guard polled > 0 else {
                return .failure(
                    RedisError(
                        "\(origin) did not finish its reply to \(verb) within "
                            + "\(configuration.commandTimeout) (\(configuration.name).commandTimeout, for the whole reply); "
                            + "\(received) bytes came"))
            }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(context.pointee.fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else {
                return .failure(RedisError("\(origin) failed: " + (count == 0 ? "it closed the connection" : String(cString: strerror(errno)))))
            }
            received += count
            guard received <= configuration.maxReplySize else {
                return .failure(
                    RedisError(
                        "\(origin) sent a reply to \(verb) larger than the limit of "
                            + "\(configuration.maxReplySize) bytes (\(configuration.name).maxReplySize)"))
            }
            // The counts it declares are checked before hiredis reserves or parses anything for them.
            if let problem = chunk.withUnsafeBufferPointer({ scanner.scan(UnsafeBufferPointer(rebasing: $0.prefix(count))) }) {
                return .failure(
                    RedisError("\(origin) sent \(problem) in its reply to \(verb)"))
            }
            let fed = chunk.withUnsafeBytes { redisReaderFeed(context.pointee.reader, $0.baseAddress!.assumingMemoryBound(to: CChar.self), count) }
            guard fed == REDIS_OK else { return .failure(RedisError("\(origin) failed: out of memory")) }
        }
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func timeval(_ duration: Duration) -> Glibc.timeval {
        let (seconds, attoseconds) = duration.components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
