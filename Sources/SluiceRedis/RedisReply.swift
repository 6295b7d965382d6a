import CHiredis
import Foundation

/// One reply from Redis, copied out of hiredis's `redisReply`.
package enum RedisReply: Sendable, CustomStringConvertible {
    case bytes(Data)
    case integer(Int)
    case array([RedisReply])
    case null
    case status(String)
    case error(String)

    package init(_ reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING: self = .bytes(value.str.map { Data(bytes: $0, count: value.len) } ?? Data())
        case REDIS_REPLY_INTEGER: self = .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            self = .array((0..<value.elements).compactMap { index in value.element[index].map { RedisReply(UnsafePointer($0)) } })
        case REDIS_REPLY_STATUS: self = .status(value.str.map { String(cString: $0) } ?? "")
        case REDIS_REPLY_ERROR: self = .error(value.str.map { String(cString: $0) } ?? "")
        default: self = .null
        }
    }

    package var integer: Int? { if case .integer(let value) = self { value } else { nil } }

    package var description: String {
        switch self {
        case .bytes(let data): "\(data.count) bytes"
        case .integer(let value): "integer \(value)"
        case .array(let items): "array of \(items.count)"
        case .null: "nil"
        case .status(let text): "status \(text)"
        case .error(let text): "error \(text)"
        }
    }
}
