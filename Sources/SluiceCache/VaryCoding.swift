import Foundation

/// Vary values as stored: `name:value` for a field the request had, `name` alone for one it had not.
enum VaryCoding {
    static func encode(_ values: [String: String?]) -> Data {
        Data(
            values.sorted { $0.key < $1.key }.map { name, value in value.map { name + ":" + $0 } ?? name }
                .joined(separator: "\n").utf8)
    }

    static func decode(_ data: Data) -> [String: String?] {
        var values: [String: String?] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if let colon = line.firstIndex(of: ":") {
                values[String(line[..<colon])] = String(line[line.index(after: colon)...])
            } else {
                values[String(line)] = String?.none
            }
        }
        return values
    }
}
