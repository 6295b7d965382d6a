import Foundation
import Sluice
import SluiceHUD
import SluiceTestSupport
import Testing

/// SluiceHUD's public numbers driven with every hostile value of ``CallerNumbers``: delays are
/// held to 0...100 years, any progress and elapsed time is described, and nothing traps.
@Suite("Caller numbers: SluiceHUD")
struct HUDCallerNumbersTests {
    @Test(.covers("ActivityTracker.Configuration.showDelay", "ActivityTracker.Configuration.linger"), arguments: CallerNumbers.durations)
    func delays(_ delay: Duration) async throws {
        let tracker = ActivityTracker(configuration: .init(showDelay: delay, linger: delay))
        #expect(tracker.configuration.showDelay == delay.clampedWait)
        #expect(tracker.configuration.linger == delay.clampedWait)
        tracker.begin()
        if delay <= .zero { try await Wait.until("the indicator shows at once") { tracker.isActive } }
        tracker.end()
    }

    @Test(.covers("TerminalHUD.describe(_:elapsed:) elapsed"), arguments: CallerNumbers.durations)
    func describe(_ elapsed: Duration) {
        for completed in CallerNumbers.int64s {
            for total in CallerNumbers.int64s {
                let text = TerminalHUD.describe(TransferProgress(direction: .download, completedBytes: completed, totalBytes: total), elapsed: elapsed)
                #expect(text.contains("/s"))
            }
        }
    }

    /// A descriptor that is no terminal (or no descriptor) draws nothing.
    @Test(.covers("TerminalHUD.init(descriptor:) descriptor"), arguments: CallerNumbers.int32s)
    func descriptors(_ fd: Int32) {
        let hud = TerminalHUD(descriptor: fd)
        #expect(hud.descriptor == fd)
        if fd < 0 || fd > 2 { #expect(!hud.isTerminal) }
    }
}
