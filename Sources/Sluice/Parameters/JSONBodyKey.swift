import Foundation

/// The value behind a body set with ``HTTPRequest/setJSONBody(_:)``, so a ``Client`` can encode
/// it with its own encoder.
///
/// ```swift
/// import Sluice
///
/// try request.setJSONBody(note)          // request.options.contains(JSONBodyKey.self) == true
/// ```
public enum JSONBodyKey: RequestOptionKey {
    /// Encodes the value with a given encoder.
    public struct Encoding: Sendable {
        let encode: @Sendable (JSONEncoder) throws -> Data
        init(_ encode: @escaping @Sendable (JSONEncoder) throws -> Data) { self.encode = encode }
    }

    public static let defaultValue: Encoding? = nil
}

extension HTTPRequest {
    /// Sets the body to `value` as JSON, with `Content-Type: application/json`. Sent through a
    /// ``Client``, the body is encoded again with the client's configured encoder
    /// (``Client/Configuration/encoder``), so every JSON body a client sends is encoded one way;
    /// through a bare ``Pipeline`` it stays as a default `JSONEncoder` wrote it.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// var request = HTTPRequest(method: .post, url: url)
    /// try request.setJSONBody(NewUser(name: "Ada"))
    /// ```
    ///
    /// - Throws: `.invalidBody` naming the value that could not be encoded.
    public mutating func setJSONBody<T: Encodable & Sendable>(_ value: T) throws(SluiceError) {
        try setJSONBody(value, encoder: JSONEncoder())
        options[JSONBodyKey.self] = JSONBodyKey.Encoding { encoder in try encoder.encode(value) }
    }

    /// Sets the body to `value` as JSON encoded by `encoder`, with `Content-Type:
    /// application/json`; no client encodes it again. A value that is not `Sendable` (which a
    /// client could not keep to encode later) is set this way.
    ///
    /// - Throws: `.invalidBody` naming the value that could not be encoded.
    public mutating func setJSONBody<T: Encodable>(_ value: T, encoder: JSONEncoder) throws(SluiceError) {
        do {
            body = .bytes(try encoder.encode(value))
        } catch {
            throw SluiceError(.invalidBody, "cannot encode \(T.self) as JSON: \(error)", underlying: error)
        }
        try headers.set(name: "Content-Type", value: "application/json")
        options.remove(JSONBodyKey.self)
    }
}
