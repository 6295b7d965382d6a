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
    /// Each easy handle's CURLOPT_ERRORBUFFER, made with the handle and freed with it.
    @exclusivity(unchecked) private var errorBuffers: [UnsafeMutableRawPointer: UnsafeMutablePointer<CChar>] = [:]

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
        // Only starts matter: a transfer that never started has nothing to cancel or feed.
        if case .start(let transfer) = operation {
            transfer.fail(with: SluiceError(.other, "the CurlTransport was shut down"))
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
            transfer.complete(result, errorBuffer: errorBuffers[handle]!)
            if transfer.releaseResources() { recycle(handle) } else { destroy(handle) }
        }
    }

    /// A new easy handle with the options every request shares.
    private func newHandle() throws -> UnsafeMutableRawPointer {
        guard let handle = curl_easy_init() else {
            throw SluiceError(.other, "curl_easy_init failed (out of memory?)")
        }
        sluice_easy_setopt_share(handle, share)
        sluice_connection_guard_attach(connectionGuard, handle)
        cookieJar?.enable(on: handle)
        do {
            try CurlTransfer.configureShared(handle, configuration, routing: routing)
        } catch {
            curl_easy_cleanup(handle)
            throw error
        }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        sluice_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer)
        errorBuffers[handle] = buffer
        return handle
    }

    /// Keeps `handle` for the next request, with its shared options and its connection cache
    /// entry; every per-request option is set again by the next transfer.
    private func recycle(_ handle: UnsafeMutableRawPointer) {
        if idle.count < configuration.idleHandlePoolSize {
            errorBuffers[handle]?[0] = 0
            idle.append(handle)
        } else {
            destroy(handle)
        }
    }

    /// Frees a handle and its error buffer.
    private func destroy(_ handle: UnsafeMutableRawPointer) {
        curl_easy_cleanup(handle)
        errorBuffers.removeValue(forKey: handle)?.deallocate()
    }
}
