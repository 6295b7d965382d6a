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
    func show(tip: String?) async
    func update(progress: TransferProgress) async
    func dismiss() async
}
