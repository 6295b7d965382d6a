import Foundation

/// A typed query or form parameter value: text, numbers, booleans, arrays and nested dictionaries.
///
/// ```swift
/// import Sluice
///
/// let parameters: [(String, ParameterValue)] = [
///     ("q", "café"), ("page", 2), ("ratio", 0.5), ("draft", true),
///     ("tags", ["a", "b"]), ("filter", ["kind": "book", "year": 2024]),
/// ]
/// ```
public enum ParameterValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// Text.
    case string(String)
    /// A whole number.
    case integer(Int)
    /// A number with a fraction, in the shortest form that reads back the same; NaN and the
    /// infinities are written `nan`, `inf` and `-inf`, as Python's `requests` writes them.
    case double(Double)
    /// A Boolean, written `true` or `false`.
    case bool(Bool)
    /// Several values under one name.
    case array([ParameterValue])
    /// Nested values, in order: `a[b]=1`.
    case dictionary([(String, ParameterValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: ParameterValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, ParameterValue)...) { self = .dictionary(elements) }

    public static func == (lhs: ParameterValue, rhs: ParameterValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .dictionary(let pairs): for (key, value) in pairs { hasher.combine(key); hasher.combine(value) }
        }
    }

    /// The text of a scalar value: integers in decimal, doubles in the shortest form that reads
    /// back the same, booleans as `true`/`false`.
    var scalarText: String? {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .double(let value): value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
        case .bool(let value): value ? "true" : "false"
        case .array, .dictionary: nil
        }
    }
}
