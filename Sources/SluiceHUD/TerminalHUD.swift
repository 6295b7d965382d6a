import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// A HUD for command-line tools: a spinner with the tip, and a progress bar with bytes, total,
/// rate and time left. It draws on standard error (or another descriptor) only when that is a
/// terminal; into a pipe or a file it writes nothing.
///
/// ```swift
/// import SluiceHUD
///
/// let hud = HUDMiddleware(presenter: TerminalHUD(), tracker: ActivityTracker())
/// ```
public final class TerminalHUD: HUDPresenter {
    private struct State {
        var tip = "Loading"
        var frame = 0
        var rate = RateWindow()
    }

    /// The rate over the last few seconds, from samples of the bytes done: not the average since
    /// the start, which a resumed download (bytes done before this run) or a burst at the start
    /// would inflate for the whole transfer.
    struct RateWindow {
        /// How far back the rate looks.
        static let span = Duration.seconds(3)
        /// The least time the samples must cover before there is a rate.
        static let least = Duration.milliseconds(250)
        private var samples: [(at: ContinuousClock.Instant, bytes: Int64)] = []

        /// Adds the bytes done at `now`; the rate in bytes a second, or nil while too little time
        /// is covered.
        mutating func add(_ bytes: Int64, at now: ContinuousClock.Instant) -> Double? {
            if let last = samples.last, bytes < last.bytes { samples.removeAll() }  // a new transfer
            if let last = samples.last, last.at.duration(to: now) < .milliseconds(50) {
                samples[samples.count - 1].bytes = bytes  // at most twenty samples a second
            } else {
                samples.append((now, bytes))
            }
            while samples.count > 2, samples[1].at.duration(to: now) >= Self.span { samples.removeFirst() }
            guard let first = samples.first else { return nil }
            let covered = first.at.duration(to: now)
            guard covered >= Self.least else { return nil }
            return Double(bytes - first.bytes) / covered.timeInterval
        }
    }

    /// The descriptor drawn on.
    public let descriptor: Int32
    /// Whether it draws at all: the descriptor is a terminal.
    public let isTerminal: Bool
    private let state = Locked(State())
    private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// A spinner written to `descriptor` (standard error by default).
    public init(descriptor: Int32 = STDERR_FILENO) {
        self.descriptor = descriptor
        isTerminal = isatty(descriptor) == 1
    }

    public func show(tip: String?) async {
        let line = state.withLock { state -> String in
            state.tip = tip ?? "Loading"
            state.frame = 0
            state.rate = RateWindow()
            return "\(Self.frames[0]) \(state.tip)"
        }
        draw(line)
    }

    public func update(progress: TransferProgress) async {
        let line = state.withLock { state -> String in
            state.frame = (state.frame + 1) % Self.frames.count
            let rate = state.rate.add(progress.completedBytes, at: .now)
            return "\(Self.frames[state.frame]) \(state.tip) " + Self.describe(progress, bytesPerSecond: rate)
        }
        draw(line)
    }

    public func dismiss() async {
        draw("")
    }

    /// The progress text after the tip, with the rate of the bytes done over `elapsed`:
    /// `[##########          ] 512 KiB / 1.0 MiB, 2.0 MiB/s, 1 s left` with a total,
    /// `2 KiB, 1 KiB/s` without one. Sizes are in units of 1,024 and say so.
    public static func describe(_ progress: TransferProgress, elapsed: Duration) -> String {
        let seconds = elapsed.timeInterval
        return describe(progress, bytesPerSecond: seconds > 0 ? Double(progress.completedBytes) / seconds : 0)
    }

    /// The progress text with a rate measured elsewhere (`nil`: not known yet, shown as `…/s`).
    static func describe(_ progress: TransferProgress, bytesPerSecond rate: Double?) -> String {
        let rateText = rate.map { "\(size(Int64(Int(clamping: max(0, $0)))))/s" } ?? "…/s"
        guard let total = progress.totalBytes, total > 0 else {
            return "\(size(progress.completedBytes)), \(rateText)"
        }
        let fraction = min(1, max(0, Double(progress.completedBytes) / Double(total)))
        let filled = Int(fraction * 20)
        let left = rate.flatMap { $0 > 0 ? Int(clamping: ((Double(total) - Double(progress.completedBytes)) / $0).rounded(.up)) : nil }
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled) + "] "
            + "\(size(progress.completedBytes)) / \(size(total)), \(rateText)" + (left.map { ", \(max(0, $0)) s left" } ?? "")
    }

    /// `512 B`, `3 KiB`, `4.8 MiB`, `1.2 GiB`: units of 1,024, named as such.
    static func size(_ bytes: Int64) -> String {
        switch bytes {
        case ..<1_024: return "\(bytes) B"
        case ..<(1 << 20): return String(format: "%.0f KiB", Double(bytes) / 1_024)
        case ..<(1 << 30): return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
        default: return String(format: "%.1f GiB", Double(bytes) / 1_073_741_824)
        }
    }

    /// Rewrites the current line: carriage return, the text, clear to the end.
    private func draw(_ line: String) {
        guard isTerminal else { return }
        // The tip may quote what a server sent (a file name): nothing in it drives the terminal.
        let bytes = Array(("\r" + line.escapingControlCharacters() + "\u{1B}[K").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
