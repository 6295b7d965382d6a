import Foundation
import Sluice
import SluiceTestSupport
import Testing

@Suite("SystemFile")
struct SystemFileTests {
    @Test func aWriteTheDescriptorRefusesIsFalseNotATrap() throws {
        // Foundation's FileHandle.write(_:) traps here (a `try!` inside): a warning to a closed or
        // read-only standard error must not end the app.
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(SystemFile.write(Array("a warning\n".utf8), to: fd) == false)
        #expect(SystemFile.write(Array("a warning\n".utf8), to: -1) == false)
    }

    /// A pipe whose reader has gone raises SIGPIPE, which would end this whole test process: the
    /// write is refused with EPIPE instead, and the signal is gone when it returns.
    @Test func aPipeWhoseReaderHasGoneIsFalseNotTheEndOfTheProcess() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        #expect(SystemFile.write(Array("a log line\n".utf8), to: ends[1]) == false)
        #expect(errno == EPIPE)
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0, "the SIGPIPE it raised is still pending")
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        #expect(sigismember(&mask, SIGPIPE) == 0, "SIGPIPE is left blocked on the thread")
    }

    @Test func everyByteArrivesPastOnePipeBuffer() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }  // over a 64 KiB pipe buffer
        let received = Locked([UInt8]())
        let reader = Blocking.readToEnd(FileHandle(fileDescriptor: ends[0], closeOnDealloc: false)) { chunk in received.withLock { $0 += chunk } }
        let (writeEnd, all) = (ends[1], bytes)
        #expect(try await Blocking.run { SystemFile.write(all, to: writeEnd) })
        close(ends[1])
        try await reader.value
        #expect(received.withLock { $0 } == bytes)
    }
}
