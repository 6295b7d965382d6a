import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE writes it.
enum Base64URL {
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    /// The bytes of `text`, or nil when it is not base64url (padding is refused, as JOSE omits it).
    static func decode(_ text: String) -> Data? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacing("-", with: "+").replacing("_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
