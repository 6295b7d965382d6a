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
/// let hud = HUDMiddleware(presenter: TerminalHUD(), tracker: ActivityTracker())
/// ```
public final class TerminalHUD: HUDPresenter {
    private struct State {
        var tip = "Loading"
        var frame = 0
        var started: ContinuousClock.Instant?
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
            state.started = .now
            return "\(Self.frames[0]) \(state.tip)"
        }
        draw(line)
    }

    public func update(progress: TransferProgress) async {
        let line = state.withLock { state -> String in
            state.frame = (state.frame + 1) % Self.frames.count
            let elapsed = state.started.map { $0.duration(to: .now) } ?? .zero
            return "\(Self.frames[state.frame]) \(state.tip) " + Self.describe(progress, elapsed: elapsed)
        }
        draw(line)
    }

    public func dismiss() async {
        draw("")
    }

    /// The progress text after the tip: `[##########          ] 512 KB / 1.0 MB, 2.0 MB/s, 1 s left`
    /// with a total, `2 KB, 1 KB/s` without one.
    public static func describe(_ progress: TransferProgress, elapsed: Duration) -> String {
        let seconds = elapsed.timeInterval
        let rate = seconds > 0 ? Double(progress.completedBytes) / seconds : 0
        guard let total = progress.totalBytes, total > 0 else {
            return "\(size(progress.completedBytes)), \(size(Int64(Int(clamping: rate))))/s"
        }
        let fraction = min(1, Double(progress.completedBytes) / Double(total))
        let filled = Int(fraction * 20)
        let left = rate > 0 ? Int(clamping: (Double(total - progress.completedBytes) / rate).rounded(.up)) : nil
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled) + "] "
            + "\(size(progress.completedBytes)) / \(size(total)), \(size(Int64(Int(clamping: rate))))/s" + (left.map { ", \($0) s left" } ?? "")
    }

    static func size(_ bytes: Int64) -> String {
        switch bytes {
        case ..<1_024: return "\(bytes) B"
        case ..<(1 << 20): return String(format: "%.0f KB", Double(bytes) / 1_024)
        default: return String(format: "%.1f MB", Double(bytes) / 1_048_576)
        }
    }

    /// Rewrites the current line: carriage return, the text, clear to the end.
    private func draw(_ line: String) {
        guard isTerminal else { return }
        let bytes = Array(("\r" + line + "\u{1B}[K").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
