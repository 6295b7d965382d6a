import Foundation
import SluiceRedis

extension FuzzTarget {
    /// `RedisReplyScanner`, the counts a Redis reply declares read before hiredis sees it, with a
    /// 64 KiB limit: it never traps, and what it decides does not depend on how the reply was cut
    /// into reads (whole, or in two pieces at a point the input's first byte picks).
    static let redisReply = FuzzTarget(name: "redis-reply", summary: "the Redis reply scanner (RESP counts and lines)") { data in
        let bytes = [UInt8](data)
        var whole = RedisReplyScanner(limit: 64 << 10, setting: "fuzz")
        let wholeVerdict = bytes.withUnsafeBufferPointer { whole.scan($0) }
        let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        var pieces = RedisReplyScanner(limit: 64 << 10, setting: "fuzz")
        var piecesVerdict = bytes[..<cut].withUnsafeBufferPointer { pieces.scan($0) }
        if piecesVerdict == nil { piecesVerdict = bytes[cut...].withUnsafeBufferPointer { pieces.scan($0) } }
        require(
            (wholeVerdict == nil) == (piecesVerdict == nil),
            "read whole it said \(String(describing: wholeVerdict)), cut at \(cut) \(String(describing: piecesVerdict))")
    }
}
