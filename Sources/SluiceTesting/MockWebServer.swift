import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// A scriptable HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for testing transports and
/// your own middleware over real sockets (like OkHttp's MockWebServer).
///
/// ```swift
/// import Testing
/// import Sluice
/// import SluiceCurl
/// import SluiceTesting
///
/// let server = try MockWebServer()
/// defer { server.shutdown() }
/// server.enqueue(.init(status: 200, headers: [("Content-Type", "application/json")], body: #"{"ok":true}"#))
/// server.enqueue(.init(status: 503).with(fault: .disconnectAfterHeaders))
///
/// let response = try await CurlTransport().send(HTTPRequest(url: server.url("/a")), context: RequestContext())
/// #expect(server.requests.first?.target == "/a")
/// #expect(server.connectionCount == 1)
/// ```
///
/// Responses come from a queue, or from ``setHandler(_:)`` when the queue is empty; with neither,
/// the server answers 404. Faults script what real servers can't: delays, throttled bodies,
/// chunked bodies, dropped connections, bad status lines, oversized headers.
public final class MockWebServer: Sendable {
    /// A scripted response.
    public struct Response: Sendable {
        /// How the server misbehaves.
        public enum Fault: Sendable, Hashable {
            /// Close the connection without sending anything.
            case disconnectBeforeResponse
            /// Send the head, then close.
            case disconnectAfterHeaders
            /// Send the head and this many body bytes (0 or more), then close (a reset mid-body).
            case disconnectAfterBodyBytes(Int)
        }

        /// The status code.
        public var status: Int
        /// The reason phrase.
        public var reason: String
        /// The header fields, in order.
        public var headers: [(String, String)]
        /// The body.
        public var body: Data
        /// Send the body with `Transfer-Encoding: chunked`, in chunks of this size (at least 1).
        public var chunkSize: Int?
        /// Trailer fields sent after the last chunk (only with `chunkSize`).
        public var trailers: [(String, String)] = []
        /// Wait this long before sending anything (held to 0...100 years).
        public var headersDelay: Duration?
        /// Send the body in pieces of `bytes` (at least 1), pausing `interval` after each.
        public var throttle: (bytes: Int, interval: Duration)?
        /// Stop sending the body after this many bytes (0 or more) until the gate opens.
        public var stall: (afterBytes: Int, gate: TestGate)?
        /// How the server misbehaves, if it does.
        public var fault: Fault?
        /// Replace the status line (e.g. `"HTTP/1.1 abc"`) to test parsers.
        public var rawStatusLine: String?
        /// Close the connection after this response.
        public var closesConnection: Bool
        /// The whole answer, written exactly as given, with nothing of the server's own (no
        /// status line, fields or framing): piece `n` is `raw(n)`, until it returns `nil` or the
        /// client goes away. For endless and hostile framing: a head or trailers that never end,
        /// chunk extensions, a coding that expands without bound.
        public var raw: (@Sendable (Int) -> Data?)?

        /// A response with these parts.
        public init(
            status: Int = 200, reason: String? = nil, headers: [(String, String)] = [], body: Data = Data(),
            chunkSize: Int? = nil, closesConnection: Bool = false
        ) {
            self.status = status
            self.reason = reason ?? Self.reason(for: status)
            self.headers = headers
            self.body = body
            self.chunkSize = chunkSize
            self.closesConnection = closesConnection
        }

        /// A response with a text body.
        public init(status: Int = 200, headers: [(String, String)] = [], body: String) {
            self.init(status: status, headers: headers, body: Data(body.utf8))
        }

        /// This response, misbehaving as `fault` says.
        public func with(fault: Fault) -> Response { var copy = self; copy.fault = fault; return copy }
        /// This response, sent after `headersDelay`.
        public func with(headersDelay: Duration) -> Response { var copy = self; copy.headersDelay = headersDelay; return copy }
        /// Sends `bytes` of the body, then waits for `gate` before sending the rest: a transfer
        /// caught mid-way for as long as the test wants.
        public func with(stallAfter bytes: Int, until gate: TestGate) -> Response {
            var copy = self; copy.stall = (bytes, gate); return copy
        }
        /// This response's body sent `bytes` at a time, `interval` apart.
        public func with(throttle bytes: Int, every interval: Duration) -> Response {
            var copy = self; copy.throttle = (bytes, interval); return copy
        }
        /// This response with `rawStatusLine` as its status line.
        public func with(rawStatusLine: String) -> Response { var copy = self; copy.rawStatusLine = rawStatusLine; return copy }
        /// An answer written piece by piece by `pieces`, raw (see ``raw``); the connection closes
        /// after it.
        public static func raw(_ pieces: @escaping @Sendable (Int) -> Data?) -> Response {
            var response = Response(status: 200, closesConnection: true)
            response.raw = pieces
            return response
        }
        /// This response with `trailers` after a chunked body.
        public func with(trailers: [(String, String)]) -> Response { var copy = self; copy.trailers = trailers; return copy }

        /// The standard reason phrase (from `HTTPStatus`), or "Status" for codes without one.
        static func reason(for status: Int) -> String {
            let phrase = HTTPStatus(code: status).reasonPhrase
            return phrase.isEmpty ? "Status" : phrase
        }
    }

    /// A request as the server received it.
    public struct RecordedRequest: Sendable {
        /// The request line's method.
        public let method: String
        /// The request target: path and query, as sent.
        public let target: String
        /// The request line's HTTP version.
        public let version: String
        /// Header fields in order, exactly as received.
        public let headers: [(name: String, value: String)]
        /// The body, de-chunked: all of it, or its first ``MockWebServer/recordedBodyLimit`` bytes.
        public let body: Data
        /// The whole body's length, even when only its start was kept.
        public let bodyLength: Int
        /// Which accepted connection (from 0) carried it.
        public let connection: Int
        /// The trailer fields after a chunked body, in order, exactly as received.
        public var trailers: [(name: String, value: String)] = []

        /// The first value of header `name` (any case).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    private struct State {
        var queue: [Response] = []
        var handler: (@Sendable (RecordedRequest) -> Response)?
        var requests: [RecordedRequest] = []
        var connections = 0
        var closedByClient = 0
        var clients: Set<Int32> = []
        var stopped = false
    }

    private let listener: Int32
    /// The port the server listens on.
    public let port: Int
    /// How many bytes of each request body are kept in ``RecordedRequest/body``; the rest is read
    /// and counted (``RecordedRequest/bodyLength``) but not kept, so a test can upload hundreds of
    /// megabytes without the server holding them.
    public let recordedBodyLimit: Int
    private let state = Locked(State())

    /// Starts a server on 127.0.0.1 and a free port.
    public init(recordedBodyLimit: Int = .max) throws {
        self.recordedBodyLimit = max(0, recordedBodyLimit)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        // The threads hold the state, never the server: when a test drops the server, `deinit`
        // shuts the sockets and the threads end. (Holding `self` kept every server alive.)
        let (state, limit) = (state, recordedBodyLimit)
        let thread = Thread { Self.acceptLoop(listener: fd, state: state, bodyLimit: limit) }
        thread.name = "mockwebserver-accept"
        thread.start()
    }

    deinit { shutdown() }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// `baseURL` plus `path` (which may carry a query). Characters a URL cannot hold as they
    /// are (a space, a quote) are percent-encoded, so any path gives a URL.
    public func url(_ path: String) -> URL {
        if let url = URL(string: "http://127.0.0.1:\(port)\(path)") { return url }
        let encoded = PercentEncoding.encode(path, keeping: .query)
        return URL(string: "http://127.0.0.1:\(port)" + (encoded.hasPrefix("/") ? "" : "/") + encoded) ?? baseURL
    }

    /// Adds responses to the queue.
    public func enqueue(_ responses: Response...) { state.withLock { $0.queue.append(contentsOf: responses) } }

    /// Answers with `handler` whenever the queue is empty. It is called on each connection's own
    /// thread, possibly several at once.
    public func setHandler(_ handler: @escaping @Sendable (RecordedRequest) -> Response) {
        state.withLock { $0.handler = handler }
    }

    /// Every request received so far.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// How many connections the server has accepted.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// How many connections the client closed (or reset) while the server was waiting for its
    /// next request on them, or while it was writing a response (a throttled body a cancelled
    /// transfer stopped reading); a client that keeps a connection alive is not counted until it
    /// lets it go, and ``shutdown()`` counts none.
    ///
    /// ```swift
    /// import SluiceTesting
    ///
    /// let server = try MockWebServer()
    /// print(server.connectionsClosedByClient)   // 0; 1 once a client that sent a request closes its connection
    /// ```
    public var connectionsClosedByClient: Int { state.withLock { $0.closedByClient } }

    /// Stops listening and closes every connection.
    public func shutdown() {
        // Under the lock: a connection thread removes its descriptor under the same lock before
        // closing it, so every descriptor in `clients` is still ours (never a reused number).
        // The listener is closed by the accept thread when accept() fails, for the same reason.
        state.withLock { state in
            if state.stopped { return }
            state.stopped = true
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
            for client in state.clients { Glibc.shutdown(client, Int32(SHUT_RDWR)) }
        }
    }

    // MARK: Serving

    private static func acceptLoop(listener: Int32, state: Locked<State>, bodyLimit: Int) {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let index: Int? = state.withLock { state in
                if state.stopped { return nil }
                state.clients.insert(client)
                defer { state.connections += 1 }
                return state.connections
            }
            guard let index else {
                close(client)
                close(listener)
                return
            }
            let thread = Thread { serve(client, connection: index, state: state, bodyLimit: bodyLimit) }
            thread.name = "mockwebserver-\(index)"
            thread.start()
        }
    }

    /// The requests in `bytes`, read as the server reads one connection, and why reading stopped:
    /// nil at a clean end of the stream, else the fault the server answers with a 400. The server's
    /// parser without a socket, for the `sluice-fuzz` target; not part of the testing API.
    @_spi(Fuzzing) public static func parseRequests(_ bytes: [UInt8], bodyLimit: Int = .max) -> (requests: [RecordedRequest], failure: String?) {
        var reader = SocketReader(fd: -1)  // recv on -1 fails, which the reader takes as the end of the stream
        reader.buffer = bytes
        var requests: [RecordedRequest] = []
        while true {
            do {
                guard let request = try RequestParser.read(from: &reader, connection: 0, bodyLimit: bodyLimit) else {
                    return (requests, nil)
                }
                requests.append(request)
            } catch {
                return (requests, String(describing: error))
            }
        }
    }

    private static func serve(_ fd: Int32, connection: Int, state: Locked<State>, bodyLimit: Int) {
        var reader = SocketReader(fd: fd)
        defer {
            state.withLock { _ = $0.clients.remove(fd) }
            close(fd)
        }
        while true {
            let request: RecordedRequest
            do {
                guard let parsed = try RequestParser.read(from: &reader, connection: connection, bodyLimit: bodyLimit) else {
                    state.withLock { state in if !state.stopped { state.closedByClient += 1 } }
                    return
                }
                request = parsed
            } catch {
                _ = write(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            }
            // The handler runs outside the lock, so a handler that takes its time (to hold requests
            // in flight) does not hold up the other connections.
            let scripted: Response? = state.withLock { state in
                state.requests.append(request)
                return state.queue.isEmpty ? nil : state.queue.removeFirst()
            }
            let handler = scripted == nil ? state.withLock { $0.handler } : nil
            let response = scripted ?? handler?(request) ?? Response(status: 404, body: "no scripted response\n")
            guard respond(response, to: request, on: fd) else {
                // A response cut short by the client (not by a scripted fault) is a close too.
                if Self.peerClosed(fd) { state.withLock { state in if !state.stopped { state.closedByClient += 1 } } }
                return
            }
            if response.closesConnection || request.header("Connection")?.lowercased() == "close" { return }
        }
    }

    /// Writes `response`; false when the connection must close.
    private static func respond(_ response: Response, to request: RecordedRequest, on fd: Int32) -> Bool {
        if let delay = response.headersDelay { Self.sleep(delay) }
        if response.fault == .disconnectBeforeResponse { return false }
        if let pieces = response.raw {
            var index = 0
            while let piece = pieces(index) {
                guard write(fd, piece) else { return false }
                index += 1
            }
            return false
        }
        var head = response.rawStatusLine ?? "HTTP/1.1 \(response.status) \(response.reason)"
        head += "\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        let hasBody = request.method != "HEAD" && response.status != 204 && response.status != 304
        if response.chunkSize != nil {
            head += "Transfer-Encoding: chunked\r\n"
        } else if !response.headers.contains(where: { $0.0.lowercased() == "content-length" }) {
            head += "Content-Length: \(response.body.count)\r\n"
        }
        if response.closesConnection { head += "Connection: close\r\n" }
        head += "\r\n"
        guard write(fd, head) else { return false }
        if response.fault == .disconnectAfterHeaders { return false }
        guard hasBody else { return true }

        var payload = response.body
        var cutAfter: Int?
        if case .disconnectAfterBodyBytes(let count) = response.fault { cutAfter = count }
        if let chunkSize = response.chunkSize {
            var chunked = Data()
            var offset = 0
            while offset < payload.count {
                let piece = payload[payload.startIndex + offset..<payload.startIndex + offset + min(payload.count - offset, max(1, chunkSize))]
                chunked.append(Data(String(piece.count, radix: 16).utf8) + Data("\r\n".utf8) + piece + Data("\r\n".utf8))
                offset += piece.count
            }
            chunked.append(Data("0\r\n".utf8))
            for (name, value) in response.trailers { chunked.append(Data("\(name): \(value)\r\n".utf8)) }
            chunked.append(Data("\r\n".utf8))
            payload = chunked
        }
        if let cutAfter { payload = payload.prefix(max(0, cutAfter)) }
        if let (bytes, gate) = response.stall.map({ (max(0, $0.afterBytes), $0.gate) }), bytes < payload.count {
            guard write(fd, payload.prefix(bytes)) else { return false }
            gate.wait()
            payload = Data(payload.dropFirst(bytes))
        }
        if let (bytes, interval) = response.throttle {
            var offset = 0
            while offset < payload.count {
                let end = offset + min(payload.count - offset, max(1, bytes))
                guard write(fd, payload[offset..<end]) else { return false }
                offset = end
                if offset < payload.count { Self.sleep(interval) }
            }
        } else {
            guard write(fd, payload) else { return false }
        }
        return cutAfter == nil
    }

    private static func write(_ fd: Int32, _ text: String) -> Bool { write(fd, Data(text.utf8)) }

    private static func write(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }

    /// Whether the peer has closed or reset `fd`: poll reports a hang-up or an error, or the
    /// socket reads as at its end.
    private static func peerClosed(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        if entry.revents & Int16(POLLHUP | POLLERR) != 0 { return true }
        var byte: UInt8 = 0
        let read = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return read == 0 || (read < 0 && errno == ECONNRESET)
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.clampedWait.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// Buffered reads from a socket.
struct SocketReader {
    let fd: Int32
    var buffer = [UInt8]()
    var start = 0

    init(fd: Int32) { self.fd = fd }

    /// Reads more bytes; false at end of stream or on error.
    mutating func fill() -> Bool {
        if start > 0 && start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }
}
