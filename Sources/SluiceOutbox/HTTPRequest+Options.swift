import Sluice

// OutboxMiddleware's per-request option: the key next to its property.

/// Marks a request for the outbox: sent now when possible, stored when the device is offline.
enum UsesOutboxKey: RequestOptionKey {
    static let defaultValue = false
    static let reader: OptionReader? = OptionReader(property: "request.usesOutbox", middleware: "OutboxMiddleware", module: "SluiceOutbox")
}

extension HTTPRequest {
    /// Keep this write in the ``Outbox`` when it fails because the device is offline (or with a
    /// transport error after which it may not have arrived), and deliver it later.
    public var usesOutbox: Bool {
        get { options[UsesOutboxKey.self] }
        set { options[UsesOutboxKey.self] = newValue }
    }
}
