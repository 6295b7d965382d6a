import Foundation

/// An API's description of an error, as RFC 9457 defines it (`application/problem+json`): the
/// typed calls read it from a refused response and carry it in ``SluiceError/problem``.
///
/// ```swift
/// import Sluice
///
/// do {
///     _ = try await client.post("orders", json: order, as: Order.self)
/// } catch let error as SluiceError {
///     if let problem = error.problem {
///         print(problem.title ?? "", problem.detail ?? "")     // "Out of credit", "Your balance is 30, …"
///         print(problem.extensions["balance"])                  // .number(30)
///     }
/// }
/// ```
public struct ProblemDetails: Sendable, Hashable {
    /// A JSON value of an extension member.
    public enum Value: Sendable, Hashable {
        /// A JSON string.
        case string(String)
        /// A JSON number.
        case number(Double)
        /// A JSON Boolean.
        case bool(Bool)
        /// JSON `null`.
        case null
        /// A JSON array.
        case array([Value])
        /// A JSON object.
        case object([String: Value])
    }

    /// A URI reference that identifies the problem type; `about:blank` when absent.
    public var type: String
    /// A short summary of the problem type.
    public var title: String?
    /// The HTTP status the server gave (as it wrote it in the document).
    public var status: Int?
    /// An explanation of this occurrence.
    public var detail: String?
    /// A URI reference that identifies this occurrence.
    public var instance: String?
    /// Every other member of the document.
    public var extensions: [String: Value]

    /// A problem document with these members.
    public init(
        type: String = "about:blank", title: String? = nil, status: Int? = nil, detail: String? = nil, instance: String? = nil,
        extensions: [String: Value] = [:]
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.extensions = extensions
    }

    /// Reads a problem document. Members of the wrong JSON type are ignored, as RFC 9457 §3.1
    /// asks; `nil` when `data` is not a JSON object.
    public init?(json data: Data) {
        guard let object = try? JSONDecoder().decode([String: Value].self, from: data) else { return nil }
        self.init()
        for (name, value) in object {
            switch (name, value) {
            case ("type", .string(let text)): type = text
            case ("title", .string(let text)): title = text
            case ("status", .number(let number)) where number == number.rounded() && abs(number) < 1e9: status = Int(number)
            case ("detail", .string(let text)): detail = text
            case ("instance", .string(let text)): instance = text
            case ("type", _), ("title", _), ("status", _), ("detail", _), ("instance", _): break
            default: extensions[name] = value
            }
        }
    }

    /// Whether `contentType` names a problem document (`application/problem+json`, any case,
    /// any parameters).
    public static func isProblem(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first?.trimmingOptionalWhitespace().lowercased()
        return mediaType == "application/problem+json"
    }
}

extension ProblemDetails.Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let array = try? container.decode([ProblemDetails.Value].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: ProblemDetails.Value].self))
        }
    }
}
