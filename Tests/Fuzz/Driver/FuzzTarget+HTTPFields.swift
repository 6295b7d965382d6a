import Foundation
import Sluice

extension FuzzTarget {
    /// `HTTPFields(parsing:)` on a raw field section, and `HTTPFields(validating:)` on a name and a
    /// value cut at the first NUL. Accepted fields have token names and values without CR, LF or
    /// NUL, and a parsed section validates again to the same fields.
    static let httpFields = FuzzTarget(name: "http-fields", summary: "HTTPFields parsing and validation") { data in
        func check(_ fields: HTTPFields, _ how: String) {
            for field in fields {
                require(!field.name.isEmpty, "\(how) accepted an empty name")
                require(field.name.utf8.allSatisfy(isToken), "\(how) accepted the name \(String(reflecting: field.name))")
                require(
                    !field.value.utf8.contains { $0 == 0 || $0 == 10 || $0 == 13 },
                    "\(how) accepted the value \(String(reflecting: field.value))")
            }
        }
        do throws(SluiceError) {
            let fields = try HTTPFields(parsing: Array(data))
            check(fields, "parsing")
            let again = try HTTPFields(validating: fields.map { (name: $0.name, value: $0.value) })
            require(again == fields, "parsed fields validated to different fields")
        } catch {
            require(
                error.code == .invalidHeader || error.code == .invalidResponse,
                "parsing failed with \(error.code)")
        }
        if let cut = data.firstIndex(of: 0) {
            let name = String(decoding: data[..<cut], as: UTF8.self)
            let value = String(decoding: data[(cut + 1)...], as: UTF8.self)
            if let fields = try? HTTPFields(validating: [(name: name, value: value)]) { check(fields, "validating") }
        }
    }

    /// RFC 9110 §5.6.2 tchar.
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
