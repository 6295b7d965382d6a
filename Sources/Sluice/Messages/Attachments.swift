/// A typed key under which a module attaches what it knows to an ``HTTPResponse`` or a
/// ``RequestContext`` (``HTTPResponse/attachments``, ``RequestContext/attachments``): the core
/// stores the value and never learns the key, so a new module adds facts without editing the core.
///
/// Declare the key in your module and, for your users, a property over it:
///
/// ```swift
/// import Sluice
///
/// enum ShardKey: AttachmentKey {
///     static let defaultValue: String? = nil
/// }
///
/// extension HTTPResponse {
///     /// The shard that answered, as `ShardMiddleware` saw it.
///     public var shard: String? {
///         get { attachments[ShardKey.self] }
///         set { attachments[ShardKey.self] = newValue }
///     }
/// }
/// ```
public protocol AttachmentKey: Sendable {
    /// The value's type.
    associatedtype Value: Sendable
    /// What a response or context without the key holds.
    static var defaultValue: Value { get }
}

/// An ``AttachmentKey`` whose value the observing modules report without knowing the key: a
/// span attribute `sluice.<name>` (SluiceTracing), a counter `http_client_<name>_total` for a count
/// on a response (SluiceMetrics). Hedging's count of hedges is one.
///
/// ```swift
/// import Sluice
///
/// enum FailoversKey: ReportedAttachmentKey {
///     static let defaultValue = 0
///     static let reportName = "failovers"
///     static func report(_ value: Int) -> ReportedValue? { value > 0 ? .count(value) : nil }
/// }
/// ```
public protocol ReportedAttachmentKey: AttachmentKey {
    /// The name it is reported under: lowercase, words joined by `_`.
    static var reportName: String { get }
    /// What to report for `value`; `nil` reports nothing (the default value, as a rule).
    static func report(_ value: Value) -> ReportedValue?
}

/// A value an observing module reports (see ``ReportedAttachmentKey``).
public enum ReportedValue: Sendable, Hashable {
    /// A count: a span attribute, and on a response a counter increased by it.
    case count(Int)
    /// A flag: a span attribute.
    case flag(Bool)
    /// A label: a span attribute.
    case label(String)
}

/// The values modules attached to one response or context, by their ``AttachmentKey``.
///
/// ```swift
/// import Sluice
///
/// enum ShardKey: AttachmentKey { static let defaultValue: String? = nil }
///
/// var response = HTTPResponse(status: .ok)
/// response.attachments[ShardKey.self] = "eu-2"
/// print(response.attachments.reported)   // what observers report: [] here, ShardKey is not reported
/// ```
public struct Attachments: Sendable {
    /// One value and the key it was set under. A handful at most, searched in order.
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let key: any AttachmentKey.Type
        @usableFromInline var value: any Sendable

        @usableFromInline
        init(key: any AttachmentKey.Type, value: any Sendable) {
            self.key = key
            self.value = value
        }
    }

    /// The first value, kept inline: most responses carry one at most (the cache's outcome, a
    /// hedge count), and one held here costs no allocation. `nil` costs nothing to copy, and a
    /// context is copied at every stage.
    @usableFromInline var first: Entry?
    /// The values after the first, in the order they were attached.
    @usableFromInline var rest: [Entry]?

    /// None attached.
    public init() {}

    /// The value attached under `key`, or its ``AttachmentKey/defaultValue``. Inlinable, so a
    /// module's own key is read and set by code specialized for it.
    @inlinable
    public subscript<Key: AttachmentKey>(key: Key.Type) -> Key.Value {
        get {
            guard let first else { return Key.defaultValue }
            let entry = first.key == key ? first : rest?.first { $0.key == key }
            return entry?.value as? Key.Value ?? Key.defaultValue
        }
        set {
            if first == nil || first?.key == key {
                first = Entry(key: key, value: newValue)
            } else if let index = rest?.firstIndex(where: { $0.key == key }) {
                rest?[index].value = newValue
            } else {
                rest = (rest ?? []) + [Entry(key: key, value: newValue)]
            }
        }
    }

    /// Whether nothing is attached.
    @inlinable
    public var isEmpty: Bool { first == nil }

    /// What the observing modules report: each ``ReportedAttachmentKey``'s name and value, in the
    /// order they were attached, leaving out the values whose key reports nothing.
    public var reported: [(name: String, value: ReportedValue)] {
        guard let first else { return [] }
        return ([first] + (rest ?? [])).compactMap { entry in
            guard let key = entry.key as? any ReportedAttachmentKey.Type else { return nil }
            return key.reportAny(entry.value)
        }
    }
}

extension ReportedAttachmentKey {
    /// ``report(_:)`` for a value stored as `any Sendable`, with the name.
    fileprivate static func reportAny(_ value: any Sendable) -> (name: String, value: ReportedValue)? {
        guard let value = value as? Value, let reported = report(value) else { return nil }
        return (reportName, reported)
    }
}
