import Foundation
import Sluice

/// Header fields as stored: `name: value` lines ended by CRLF, read back with `HTTPFields(parsing:)`.
enum HTTPFieldsCoding {
    static func encode(_ fields: HTTPFields) -> Data {
        var text = ""
        for field in fields { text += field.name + ": " + field.value + "\r\n" }
        return Data(text.utf8)
    }

    static func decode(_ data: Data) throws -> HTTPFields {
        try HTTPFields(parsing: Array(data))
    }
}
