import CCurl
import CCurlShim
import Foundation
import Sluice
import Synchronization

/// One thread that drives one `curl_multi` handle, and a `TaskExecutor` that runs jobs on it.
///
/// Everything curl touches (the multi and share handles, the easy handles, every active transfer)
/// is used on this thread only. Other threads talk to it through `submit`, which queues an
/// operation under a lock and wakes the thread with `curl_multi_wakeup` only when it is parked in
/// `curl_multi_poll`.
final class CurlEventLoop: TaskExecutor, @unchecked Sendable {
    // @unchecked: `multi`, `share`, `idle` and `active` are used only on the loop thread (see
    // `run`); the only state other threads reach is `state`, behind a lock. The thread holds the loop
    // strongly until `run` returns after `shutdown`.

    enum Operation {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
        /// Run a closure on the loop thread (stream bodies feeding curl).
        case perform(@Sendable () -> Void)
        /// Count the pool on the loop thread and hand the figures over; `[:]` once it stopped.
        case countPool(@Sendable ([String: PoolStatistics]) -> Void)
    }

    private struct State {
        var operations: [Operation] = []
        var jobs: [UnownedJob] = []
        var parked = false
        var stopping = false
        /// The thread has exited: jobs go to the global executor, operations fail at once.
        var finished = false
    }

    private let multi: UnsafeMutableRawPointer
    private let share: UnsafeMutableRawPointer
    /// The transport's cookie jar, whose share this loop uses instead of its own.
    private let cookieJar: CurlCookieJar?
    private let state = Locked(State())
    /// Transfers sent to this loop and not yet finished, for choosing the least busy loop.
    let load = Atomic<Int>(0)
    /// The loop thread's `pthread_self()`, 0 until it runs.
    private let threadID = Atomic<UInt>(0)
    private let configuration: CurlTransport.Configuration
    /// The fields every request on this loop carries unless it has its own, as curl header lists.
    let defaultFields: CurlTransfer.DefaultFields
    /// The transport's resolve and connect-to lists.
    let routing: CurlTransfer.Routing
    // Loop thread only, never re-entrant: no run-time exclusivity checks needed.
    @exclusivity(unchecked) private var idle: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Jobs of the batch being run that have not started yet (loop thread only).
    @exclusivity(unchecked) private var jobsLeftInBatch = 0
    /// The sockets the loop's handles opened: drops a reused HTTP/1.x connection with bytes left
    /// on it right before a request would be sent on it (see `sluice_connection_guard`).
    private let connectionGuard: OpaquePointer
    /// Each easy handle's state (its CURLOPT_ERRORBUFFER, the sockets its transfer opened and
    /// was given), made with the handle and freed with it (loop thread only).
    @exclusivity(unchecked) private var handleStates: [UnsafeMutableRawPointer: OpaquePointer] = [:]
    /// The scheme and authority of the last transfer each open socket carried: an idle
    /// connection's origin (loop thread only; sockets no longer open are dropped when the pool is
    /// counted). `authorityURL`, never `url`: a signed request's URL is text, and reading `url`
    /// would parse it on every call.
    @exclusivity(unchecked) private var socketURLs: [Int32: URL] = [:]

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_ALL)) }()

    private let index: Int

    init(configuration: CurlTransport.Configuration, index: Int, cookieJar: CurlCookieJar? = nil) {
        self.index = index
        _ = Self.globalInit
        self.configuration = configuration
        self.defaultFields = CurlTransfer.DefaultFields(configuration)
        self.routing = CurlTransfer.Routing(configuration)
        self.cookieJar = cookieJar
        multi = curl_multi_init()
        connectionGuard = sluice_connection_guard_new()
        if let cookieJar {
            share = cookieJar.share
        } else {
            share = curl_share_init()
            sluice_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
            sluice_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        }
        if configuration.maxConnections > 0 {
            sluice_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxConnections)
        }
        if configuration.maxConnectionsPerHost > 0 {
            sluice_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        }
        sluice_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        sluice_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, configuration.maxIdleConnections))
        let thread = Thread { self.run() }
        thread.name = "sluice-curl-\(index)"
        thread.start()
    }

    /// Whether the caller is running on this loop's thread.
    var isCurrentThread: Bool { threadID.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self())) }

    /// Queues `operation` for the loop thread.
    func submit(_ operation: Operation) {
        let wake: Bool? = state.withLock { state in
            if state.finished { return nil }
            state.operations.append(operation)
            defer { state.parked = false }
            return state.parked
        }
        guard let wake else { return Self.refuse(operation) }
        if wake { curl_multi_wakeup(multi) }
    }

    /// What happens to an operation submitted after the loop has stopped.
    private static func refuse(_ operation: Operation) {
        // A transfer that never started fails, and a count gets nothing; a cancel or a feed has
        // nothing left to act on.
        switch operation {
        case .start(let transfer): transfer.fail(with: SluiceError(.other, "the CurlTransport was shut down"))
        case .countPool(let report): report([:])
        case .cancel, .perform: break
        }
    }

    // MARK: TaskExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake: Bool? = state.withLock { state in
            if state.finished { return nil }
            state.jobs.append(job)
            defer { state.parked = false }
            return state.parked
        }
        guard let wake else {
            // A task that still prefers this executor after the transport is gone runs elsewhere.
            return globalConcurrentExecutor.enqueue(job)
        }
        if wake { curl_multi_wakeup(multi) }
    }

    /// Stops the thread once the transfers in flight have ended (each is cancelled).
    func shutdown() {
        state.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    // MARK: The loop

    private func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        sluice_set_thread_name("sluice-curl-\(index)")  // Foundation's Thread.name does not reach the OS
        // Every write on this thread is Sluice's: libcurl's (which sends with MSG_NOSIGNAL, though
        // TLS libraries and a body written to a FIFO may not) and hiredis's, for a cache hit served
        // here. None may end the app with SIGPIPE.
        BrokenPipe.blockOnThisThread()
        // Busy: a transfer in flight, or other work waiting its turn on this thread (the rest of
        // the current batch of jobs, or jobs and operations queued since).
        EventThread.markCurrent { [unowned self] in
            !active.isEmpty || jobsLeftInBatch > 0 || state.withLock { !$0.jobs.isEmpty || !$0.operations.isEmpty }
        }
        defer { EventThread.unmarkCurrent() }
        var running: Int32 = 0
        // Swapped with the shared queues under the lock, so neither side allocates per iteration.
        var operations: [Operation] = []
        var jobs: [UnownedJob] = []
        operations.reserveCapacity(64)
        jobs.reserveCapacity(64)
        // Whether curl has something to do: a socket was ready, a transfer was added, removed or
        // unpaused, or one of its timers is due. A wake-up that only brought jobs (a caller
        // resuming, a middleware running) leaves curl alone: `curl_multi_perform` walks every
        // transfer, and at 16 in flight that was most of the loop's own cost.
        var curlIsDue = true
        while true {
            let stopping = state.withLock { state in
                swap(&operations, &state.operations)
                swap(&jobs, &state.jobs)
                return state.stopping
            }
            jobsLeftInBatch = jobs.count
            for job in jobs {
                jobsLeftInBatch -= 1
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            for operation in operations { apply(operation) }
            if !operations.isEmpty { curlIsDue = true }
            jobs.removeAll(keepingCapacity: true)
            operations.removeAll(keepingCapacity: true)
            if stopping {
                for transfer in Array(active.values) { cancel(transfer) }
                // Whatever arrived meanwhile: jobs move to the global executor, starts fail.
                let (lateOperations, lateJobs) = state.withLock { state in
                    state.finished = true
                    defer { state.operations = []; state.jobs = [] }
                    return (state.operations, state.jobs)
                }
                for job in lateJobs { globalConcurrentExecutor.enqueue(job) }
                for operation in lateOperations { Self.refuse(operation) }
                break
            }

            if !curlIsDue {
                var timeout = -1
                curl_multi_timeout(multi, &timeout)
                curlIsDue = timeout == 0
            }
            if curlIsDue {
                curl_multi_perform(multi, &running)
                drainMessages()
                curlIsDue = false
            }

            let park = state.withLock { state in
                if state.operations.isEmpty && state.jobs.isEmpty && !state.stopping {
                    state.parked = true
                    return true
                }
                return false
            }
            if park {
                var ready: Int32 = 0
                curl_multi_poll(multi, nil, 0, 1000, &ready)
                // The wake-up's own descriptor is not counted: `ready` is curl's sockets only.
                if ready > 0 { curlIsDue = true }
                state.withLock { $0.parked = false }
            }
        }
        for handle in idle { destroy(handle) }
        idle.removeAll()
        curl_multi_cleanup(multi)
        sluice_connection_guard_free(connectionGuard)  // after the cleanup, which closes sockets through it
        if cookieJar == nil { curl_share_cleanup(share) }
        defaultFields.free()
        routing.free()
    }

    private func apply(_ operation: Operation) {
        switch operation {
        case .start(let transfer):
            start(transfer)
        case .cancel(let transfer):
            cancel(transfer)
        case .perform(let body):
            body()
        case .countPool(let report):
            report(poolStatistics())
        }
    }

    private func start(_ transfer: CurlTransfer) {
        if transfer.isCancelRequested {
            transfer.fail(with: CancellationError())
            return
        }
        let handle: UnsafeMutableRawPointer
        do {
            handle = try idle.popLast() ?? newHandle()
        } catch {
            transfer.fail(with: error)
            return
        }
        do {
            try transfer.configure(handle)
        } catch {
            transfer.releaseResources()
            destroy(handle)  // half-configured: not reused
            transfer.fail(with: error)
            return
        }
        active[handle] = transfer
        let code = curl_multi_add_handle(multi, handle)
        if code != CURLM_OK {
            active[handle] = nil
            if transfer.releaseResources() { recycle(handle) } else { destroy(handle) }
            transfer.fail(with: SluiceError(.other, "curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(code)))"))
        }
    }

    private func cancel(_ transfer: CurlTransfer) {
        guard let handle = transfer.handle, active[handle] === transfer else { return }
        curl_multi_remove_handle(multi, handle)
        active[handle] = nil
        if transfer.releaseResources() { recycle(handle) } else { destroy(handle) }
        transfer.fail(with: CancellationError())
    }

    /// Notes that `handle`'s connection speaks HTTP/1.x (called from its status line); returns
    /// its socket, or -1 when it is not one the loop tracks.
    @discardableResult
    func markHTTP1(_ handle: UnsafeMutableRawPointer) -> Int32 {
        sluice_connection_guard_mark_http1(connectionGuard, handle)
    }

    /// How many connections this loop shut down for bytes left on them. On the loop's thread only.
    var droppedConnections: Int { sluice_connection_guard_dropped(connectionGuard) }

    /// This loop's connections and transfers by origin (loop thread only): a socket carrying or
    /// opened by a transfer in flight is busy for that transfer's origin; any other open socket
    /// is idle for the origin of the last transfer it carried; a transfer without a connection it
    /// was given yet waits for one.
    func poolStatistics() -> [String: PoolStatistics] {
        var sockets = [Int32](repeating: -1, count: 64)
        var open = sluice_connection_guard_sockets(connectionGuard, &sockets, sockets.count)
        if open > sockets.count {
            sockets = [Int32](repeating: -1, count: open)
            open = sluice_connection_guard_sockets(connectionGuard, &sockets, sockets.count)
        }
        let live = Set(sockets.prefix(min(open, sockets.count)))
        var figures: [String: PoolStatistics] = [:]
        var busy: [Int32: String] = [:]
        for (handle, transfer) in active {
            let origin = transfer.request.authorityURL.origin
            guard let state = handleStates[handle] else { continue }
            let given = sluice_handle_state_socket(state), opened = sluice_handle_state_opened(state)
            if given < 0 || !live.contains(given) { figures[origin, default: PoolStatistics(origin: origin)].waitingForConnection += 1 }
            for socket in [given, opened] where socket >= 0 && live.contains(socket) { busy[socket] = origin }
        }
        for socket in live {
            let origin = busy[socket] ?? socketURLs[socket]?.origin ?? "unknown"
            figures[origin, default: PoolStatistics(origin: origin)].openConnections += 1
            if busy[socket] != nil { figures[origin]!.busyConnections += 1 }
        }
        socketURLs = socketURLs.filter { live.contains($0.key) }
        return figures
    }

    /// Resumes a paused transfer (a stream body got more data).
    func unpause(_ transfer: CurlTransfer) {
        guard let handle = transfer.handle, active[handle] === transfer else { return }
        curl_easy_pause(handle, sluice_pause_continue())
    }

    private func drainMessages() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            curl_multi_remove_handle(multi, handle)
            guard let transfer = active.removeValue(forKey: handle) else { continue }
            // Saved before the caller resumes, so the file holds the cookie once the call returns.
            // A failure here is not the request's: saveCookies() reports it.
            if let cookieJar, cookieJar.file != nil, transfer.receivedCookies { try? cookieJar.save() }
            let state = handleStates[handle]!
            let socket = sluice_handle_state_socket(state)
            if socket >= 0 { socketURLs[socket] = transfer.request.authorityURL }
            transfer.complete(result, errorBuffer: sluice_handle_state_error(state))
            if transfer.releaseResources() { recycle(handle) } else { destroy(handle) }
        }
    }

    /// A new easy handle with the options every request shares.
    private func newHandle() throws -> UnsafeMutableRawPointer {
        guard let handle = curl_easy_init() else {
            throw SluiceError(.other, "curl_easy_init failed (out of memory?)")
        }
        sluice_easy_setopt_share(handle, share)
        guard let state = sluice_connection_guard_attach(connectionGuard, handle) else {
            curl_easy_cleanup(handle)
            throw SluiceError(.other, "a new curl handle's state could not be allocated (out of memory?)")
        }
        cookieJar?.enable(on: handle)
        do {
            try CurlTransfer.configureShared(handle, configuration, routing: routing)
        } catch {
            curl_easy_cleanup(handle)
            sluice_handle_state_free(state)
            throw error
        }
        handleStates[handle] = state
        return handle
    }

    /// Keeps `handle` for the next request, with its shared options and its connection cache
    /// entry; every per-request option is set again by the next transfer.
    private func recycle(_ handle: UnsafeMutableRawPointer) {
        if idle.count < configuration.idleHandlePoolSize {
            if let state = handleStates[handle] { sluice_handle_state_reset(state) }
            idle.append(handle)
        } else {
            destroy(handle)
        }
    }

    /// Frees a handle and its state.
    private func destroy(_ handle: UnsafeMutableRawPointer) {
        curl_easy_cleanup(handle)
        if let state = handleStates.removeValue(forKey: handle) { sluice_handle_state_free(state) }
    }
}
