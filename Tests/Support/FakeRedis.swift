import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// A Redis that answers what a test tells it, on 127.0.0.1 with an ephemeral port: the hostile
/// peer of `RedisCacheStore`'s tests (replies of any size, depth or pace), which a real
/// redis-server cannot be made to send. It reads each command (a RESP array of bulk strings) and
/// writes the pieces `answer` gives for it, `interval` apart, until `answer` gives `nil` or the
/// client goes away.
///
/// ```swift
/// let redis = try FakeRedis { command, piece in piece == 0 ? Data("$-1\r\n".utf8) : nil }
/// defer { redis.shutdown() }
/// let store = RedisCacheStore(configuration: .init(port: redis.port))
/// ```
package final class FakeRedis: Sendable {
    /// Piece `n` of the answer to `command` (its words), or `nil` when the answer is complete.
    package typealias Answer = @Sendable (_ command: [String], _ piece: Int) -> Data?

    /// The port it listens on.
    package let port: Int
    private let listener: Int32
    private let state = Locked((commands: [[String]](), bytesWritten: 0, open: Set<Int32>(), stopped: false))

    /// Every command received, in order.
    package var commands: [[String]] { state.withLock { $0.commands } }
    /// Every byte written to clients so far.
    package var bytesWritten: Int { state.withLock { $0.bytesWritten } }

    /// Listens, and answers each command with `answer`'s pieces, `interval` apart.
    package init(interval: Duration = .zero, answer: @escaping Answer) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { [listener] in
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && getsockname(listener, pointer, &length) == 0 && listen(listener, 16) == 0
            }
        }
        guard bound else {
            close(listener)
            throw SluiceError(.other, "FakeRedis could not listen: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let (listener, state) = (self.listener, self.state)
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    close(listener)
                    return
                }
                let admitted = state.withLock { state -> Bool in
                    if state.stopped { return false }
                    state.open.insert(client)
                    return true
                }
                guard admitted else {
                    close(client)
                    close(listener)
                    return
                }
                Thread.detachNewThread { Self.serve(client, state: state, interval: interval, answer: answer) }
            }
        }
    }

    deinit { shutdown() }

    /// Stops listening and closes every connection; once (a second call, from `deinit`, does
    /// nothing).
    package func shutdown() {
        // Under the lock, as MockWebServer does: a connection thread removes its descriptor under
        // the same lock before closing it, and the accept thread closes the listener once
        // `stopped` is set, so every descriptor shut down here is still this server's. Outside
        // the lock, or twice, the number may already belong to another test's socket, and that
        // test sees its connection closed.
        state.withLock { state in
            if state.stopped { return }
            state.stopped = true
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
            for client in state.open { Glibc.shutdown(client, Int32(SHUT_RDWR)) }
        }
    }

    private static func serve(
        _ client: Int32, state: Locked<(commands: [[String]], bytesWritten: Int, open: Set<Int32>, stopped: Bool)>, interval: Duration,
        answer: Answer
    ) {
        defer {
            state.withLock { _ = $0.open.remove(client) }
            close(client)
        }
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            while let (command, used) = parse(buffer) {
                buffer.removeFirst(used)
                state.withLock { $0.commands.append(command) }
                var piece = 0
                while let data = answer(command, piece) {
                    guard write(client, data) else { return }
                    state.withLock { $0.bytesWritten += data.count }
                    piece += 1
                    if interval > .zero { Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) * 1e-18) }
                }
            }
            let count = chunk.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// One command (`*N` then N bulk strings) from the front of `buffer`, and the bytes it took;
    /// `nil` until it is whole.
    static func parse(_ buffer: Data) -> ([String], Int)? {
        let bytes = [UInt8](buffer)
        var index = 0
        func line() -> String? {
            guard let end = bytes[index...].firstIndex(of: 0x0A), end > index else { return nil }
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end].dropLast(bytes[end - 1] == 0x0D ? 1 : 0), as: UTF8.self)
        }
        guard let head = line(), head.first == "*", let count = Int(head.dropFirst()) else { return nil }
        var words: [String] = []
        for _ in 0..<max(0, count) {
            guard let size = line(), size.first == "$", let length = Int(size.dropFirst()), bytes.count >= index + length + 2 else { return nil }
            words.append(String(decoding: bytes[index..<(index + length)], as: UTF8.self))
            index += length + 2
        }
        return (words, index)
    }

    private static func write(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}
