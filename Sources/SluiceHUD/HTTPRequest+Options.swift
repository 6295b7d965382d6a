import Sluice

// HUDMiddleware's per-request options: each key next to its property.

/// Per-request HUD text.
enum HUDTipKey: RequestOptionKey {
    static let defaultValue: String? = nil
    static let reader: OptionReader? = OptionReader(property: "request.hudTip", middleware: "HUDMiddleware", module: "SluiceHUD")
}

/// Per-request opt-in or opt-out of the HUD.
enum ShowsHUDKey: RequestOptionKey {
    static let defaultValue = RequestOverride.asConfigured
    static let reader: OptionReader? = OptionReader(property: "request.showsHUD", middleware: "HUDMiddleware", module: "SluiceHUD")
}

extension HTTPRequest {
    /// The text a HUD shows while this request runs.
    public var hudTip: String? {
        get { options[HUDTipKey.self] }
        set { options[HUDTipKey.self] = newValue }
    }

    /// `.always` or `.never` to show the HUD for this request or not; `.asConfigured` (the
    /// default) follows the middleware's configuration.
    public var showsHUD: RequestOverride {
        get { options[ShowsHUDKey.self] }
        set { options[ShowsHUDKey.self] = newValue }
    }
}
