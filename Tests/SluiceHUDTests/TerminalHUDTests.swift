import Foundation
import Sluice
import SluiceTestSupport
import SluiceTesting
import Testing

@testable import SluiceHUD

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct TerminalHUDTests {
    @Test func drawsTheSpinnerTipAndBarOnATerminal() async throws {
        // posix_openpt, grantpt and unlockpt by hand (Glibc's module map hides them): the
        // multiplexer, unlock the pair (TIOCSPTLCK, _IOW('T', 0x31, int)), ask its number (TIOCGPTN,
        // _IOR('T', 0x30, unsigned int)); the macros do not reach Swift, their Linux values do.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        try #require(ioctl(master, 0x4004_5431 as UInt, &unlock) == 0)
        var number: UInt32 = 0
        try #require(ioctl(master, 0x8004_5430 as UInt, &number) == 0)
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        defer { close(slave) }

        let hud = TerminalHUD(descriptor: slave)
        #expect(hud.isTerminal)
        await hud.show(tip: "Fetching")
        await hud.update(progress: TransferProgress(direction: .download, completedBytes: 524_288, totalBytes: 1_048_576))
        await hud.dismiss()

        let output = readAvailable(master)
        #expect(output.hasPrefix("\r⠋ Fetching\u{1B}[K\r⠙ Fetching [##########          ] 512 KiB / 1.0 MiB, …/s"))
        #expect(output.contains("/s"))
        #expect(output.hasSuffix("\r\u{1B}[K"))

        // Issue 27, item 8: a tip that quotes a server (a file name) cannot drive the terminal.
        await hud.show(tip: "report\u{1B}]0;owned\u{07}\u{9B}2J\u{202E}fdp.exe")
        await hud.dismiss()
        let hostile = readAvailable(master)
        #expect(hostile.hasPrefix("\r⠋ " + #"report\u{1B}]0;owned\u{07}\u{009B}2J\u{202E}fdp.exe"# + "\u{1B}[K"), "\(hostile)")
        #expect(!hostile.unicodeScalars.contains { $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x202E })
    }

    @Test func writesNothingIntoAPipe() async throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let hud = TerminalHUD(descriptor: fds[1])
        #expect(!hud.isTerminal)
        await hud.show(tip: "Fetching")
        await hud.update(progress: TransferProgress(direction: .upload, completedBytes: 1, totalBytes: 2))
        await hud.dismiss()
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(read(fds[0], &buffer, buffer.count) == 0)  // end of file: not one byte written
        close(fds[0])
    }

    @Test func theBarShowsBytesTotalRateAndTimeLeft() {
        let half = TransferProgress(direction: .download, completedBytes: 1_048_576, totalBytes: 2_097_152)
        #expect(
            TerminalHUD.describe(half, elapsed: .seconds(1))
                == "[##########          ] 1.0 MiB / 2.0 MiB, 1.0 MiB/s, 1 s left")
        let unknown = TransferProgress(direction: .download, completedBytes: 2_048, totalBytes: nil)
        #expect(TerminalHUD.describe(unknown, elapsed: .seconds(2)) == "2 KiB, 1 KiB/s")
        let started = TransferProgress(direction: .upload, completedBytes: 0, totalBytes: 100)
        #expect(TerminalHUD.describe(started, elapsed: .zero) == "[                    ] 0 B / 100 B, 0 B/s")
    }

    @Test func sizesSayTheirUnits() {
        #expect(TerminalHUD.size(5_000_000) == "4.8 MiB")
        #expect(TerminalHUD.size(3_000) == "3 KiB")
        #expect(TerminalHUD.size(3 << 30) == "3.0 GiB")
    }

    /// A resumed download starts with the bytes an earlier run got: the rate is the last few
    /// seconds' bytes, not everything done since the start (which read 7,439 MB/s before).
    @Test func theRateComesFromAMovingWindow() {
        var window = TerminalHUD.RateWindow()
        let start = ContinuousClock.now
        #expect(window.add(50_000_000, at: start) == nil)  // 50 MB already on disk
        #expect(window.add(50_000_100, at: start + .milliseconds(100)) == nil)  // too little time yet
        // 3.2 MB/s from here on, for 10 s, sampled every 100 ms.
        var rate: Double?
        for tenth in 2...100 { rate = window.add(50_000_000 + Int64(tenth) * 320_000, at: start + .milliseconds(100 * tenth)) }
        let measured = try? #require(rate)
        #expect(measured.map { abs($0 - 3_200_000) < 50_000 } == true, "\(String(describing: measured))")
        let progress = TransferProgress(direction: .download, completedBytes: 82_000_000, totalBytes: 98_000_000)
        #expect(TerminalHUD.describe(progress, bytesPerSecond: measured).contains("3.1 MiB/s, 5 s left"))
        #expect(TerminalHUD.describe(progress, bytesPerSecond: nil).hasSuffix("…/s"))
    }

    @Test func aServersHugeLengthAndATrickleGiveAClampedTimeLeftNotATrap() {
        // 2^63-1 bytes announced, one byte in 1,000 s: the time left does not fit an Int.
        let trickle = TransferProgress(direction: .download, completedBytes: 1, totalBytes: .max)
        let text = TerminalHUD.describe(trickle, elapsed: .seconds(1_000))
        #expect(text.hasSuffix(", \(Int.max) s left"))
    }

    func readAvailable(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) == 1 else { break }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
