import Foundation

/// Turns typed parameters into `name=value` pairs, percent-encoded (RFC 3986), for a query or an
/// `application/x-www-form-urlencoded` body.
///
/// ```swift
/// import Sluice
///
/// let encoder = ParameterEncoder(arrayStyle: .brackets, sortsKeys: true)
/// encoder.query([("tags", ["a", "b"]), ("q", "café")])     // "q=caf%C3%A9&tags%5B%5D=a&tags%5B%5D=b"
/// ```
public struct ParameterEncoder: Sendable, Hashable {
    /// How an array is written.
    public enum ArrayStyle: Sendable, Hashable {
        /// `a=1&a=2`
        case repeated
        /// `a[]=1&a[]=2`
        case brackets
        /// `a=1,2`
        case commaSeparated
    }

    /// How an array is written.
    public var arrayStyle: ArrayStyle
    /// Sort parameters by name (nested keys too), so the same parameters always give the same
    /// query, and so the same cache key.
    public var sortsKeys: Bool

    /// An encoder with `arrayStyle`, sorting names when `sortsKeys`.
    public init(arrayStyle: ArrayStyle = .repeated, sortsKeys: Bool = false) {
        self.arrayStyle = arrayStyle
        self.sortsKeys = sortsKeys
    }

    /// Arrays as `a=1&a=2`, parameters in the order given.
    public static let `default` = ParameterEncoder()

    /// The plain `(name, value)` pairs, before encoding: nested dictionaries as `a[b]`.
    public func pairs(_ parameters: [(String, ParameterValue)]) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for (name, value) in sortsKeys ? parameters.sorted(by: { $0.0 < $1.0 }) : parameters {
            append(name, value, to: &result)
        }
        return result
    }

    private func append(_ name: String, _ value: ParameterValue, to result: inout [(name: String, value: String)]) {
        switch value {
        case .array(let values):
            switch arrayStyle {
            case .repeated: for element in values { append(name, element, to: &result) }
            case .brackets: for element in values { append(name + "[]", element, to: &result) }
            case .commaSeparated:
                let scalars = values.compactMap(\.scalarText)
                if scalars.count == values.count {
                    result.append((name, scalars.joined(separator: ",")))
                } else {
                    for element in values { append(name + "[]", element, to: &result) }
                }
            }
        case .dictionary(let pairs):
            for (key, nested) in sortsKeys ? pairs.sorted(by: { $0.0 < $1.0 }) : pairs {
                append(name + "[" + key + "]", nested, to: &result)
            }
        default:
            result.append((name, value.scalarText!))
        }
    }

    /// `name=value&…`, percent-encoded for a query.
    public func query(_ parameters: [(String, ParameterValue)]) -> String {
        pairs(parameters).map { PercentEncoding.encode($0.name, keeping: .queryItem) + "=" + PercentEncoding.encode($0.value, keeping: .queryItem) }
            .joined(separator: "&")
    }

    /// An `application/x-www-form-urlencoded` body (spaces as `%20`, which every server reads).
    public func form(_ parameters: [(String, ParameterValue)]) -> Data {
        Data(query(parameters).utf8)
    }
}
