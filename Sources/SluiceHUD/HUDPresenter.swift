import Sluice

/// What draws a loading indicator. ``HUDMiddleware`` calls it in order: `show`, any `update`s,
/// `dismiss`, never out of order.
///
/// ```swift
/// import Sluice
/// import SluiceHUD
///
/// struct BannerHUD: HUDPresenter {
///     func show(tip: String?) async { await banner.show(tip ?? "Loading…") }
///     func update(progress: TransferProgress) async { await banner.progress(progress.fractionCompleted) }
///     func dismiss() async { await banner.hide() }
/// }
/// ```
public protocol HUDPresenter: Sendable {
    /// Shows the indicator, with the request's tip (`request.hudTip`) when it has one. Called once
    /// the first request has been in flight for the tracker's delay.
    func show(tip: String?) async
    /// The transfer's progress while the indicator shows: bytes, total when known, rate.
    func update(progress: TransferProgress) async
    /// Hides the indicator, after the last request ended; never before its `show`.
    func dismiss() async
}
