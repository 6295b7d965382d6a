import Foundation
import Sluice
import Synchronization

/// Drives a loading HUD from the requests in flight: an ``ActivityTracker`` decides when it shows
/// (after a delay) and hides (after a linger); the presenter gets `show(tip:)`, progress `update`s
/// and `dismiss()` strictly in that order, from one task, however many requests run at once.
///
/// ```swift
/// import Sluice
/// import SluiceHUD
///
/// let hud = HUDMiddleware(presenter: TerminalHUD(), tracker: ActivityTracker())
/// builder.add(hud)                                  // position .hud, outermost
/// var request = HTTPRequest(url: url)
/// request.hudTip = "Loading your orders…"
/// ```
public struct HUDMiddleware: Middleware {
    /// Whether requests show the HUD unless they say otherwise.
    public struct Configuration: Sendable {
        /// Show the HUD for requests that do not say (`HTTPRequest.showsHUD`).
        public var showsByDefault: Bool

        /// Settings with each value given, or its default.
        public init(showsByDefault: Bool = true) {
            self.showsByDefault = showsByDefault
        }

        /// Every request shows the HUD unless it opts out.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.hud
    public static let readsOptions: [any RequestOptionKey.Type] = [HUDTipKey.self, ShowsHUDKey.self]

    /// Counts the calls in flight and decides when the presenter shows.
    public let tracker: ActivityTracker
    /// How it behaves.
    public let configuration: Configuration
    private let pump: PresenterPump

    /// A HUD shown by `presenter`, counted by `tracker`.
    public init(presenter: any HUDPresenter, tracker: ActivityTracker = ActivityTracker(), configuration: Configuration = .default) {
        self.tracker = tracker
        self.configuration = configuration
        self.pump = PresenterPump(presenter: presenter, tracker: tracker)
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard request.showsHUD.applies(configured: configuration.showsByDefault) else { return try await next(request, context) }
        pump.setTip(request.hudTip)
        tracker.begin()
        defer { tracker.end() }
        var context = context
        let earlier = context.progress
        let pump = self.pump
        context.progress = { progress in
            earlier?(progress)
            pump.send(.update(progress))
        }
        return try await next(request, context)
    }
}

/// One ordered channel to the presenter: show, updates and dismiss are delivered by one task in
/// the order they were sent; updates before a show or after a dismiss are dropped.
final class PresenterPump: Sendable {
    enum Event: Sendable {
        case show
        case update(TransferProgress)
        case dismiss
    }

    private let events: AsyncStream<Event>.Continuation
    /// The tip shown next; a class so the consumer task can share it (a lock cannot be copied).
    private final class TipBox: Sendable {
        let value = Locked<String?>(nil)
    }

    private let tip = TipBox()
    private let consumer: Task<Void, Never>
    private let watcher: Task<Void, Never>
    /// Whether the indicator is showing (or about to): progress is only sent then, so a fast
    /// request's updates wake no task at all.
    private let isShowing = ShowingFlag()

    /// A flag the watcher task shares (an atomic cannot be copied into it).
    private final class ShowingFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    init(presenter: any HUDPresenter, tracker: ActivityTracker) {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        events = continuation
        let tip = self.tip
        consumer = Task {
            var showing = false
            for await event in stream {
                switch event {
                case .show where !showing:
                    showing = true
                    await presenter.show(tip: tip.value.withLock { $0 })
                case .update(let progress) where showing:
                    await presenter.update(progress: progress)
                case .dismiss where showing:
                    showing = false
                    await presenter.dismiss()
                default:
                    continue
                }
            }
        }
        let changes = tracker.changes
        let isShowing = self.isShowing
        watcher = Task {
            for await active in changes {
                isShowing.value.store(active, ordering: .relaxed)
                continuation.yield(active ? .show : .dismiss)
            }
        }
    }

    deinit {
        watcher.cancel()
        events.finish()
    }

    func setTip(_ text: String?) { tip.value.withLock { $0 = text } }

    func send(_ event: Event) {
        if case .update = event, !isShowing.value.load(ordering: .relaxed) { return }
        events.yield(event)
    }
}
