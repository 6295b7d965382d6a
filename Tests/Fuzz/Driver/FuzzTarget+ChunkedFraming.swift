import Foundation
import SluiceCurl

extension FuzzTarget {
    /// `ChunkedFramingScanner`, which tells where a chunked response body ends while a request body
    /// still streams: it never traps, and whether it saw the end does not depend on how the bytes
    /// were cut into reads (whole, in two pieces, or byte by byte).
    static let chunkedFraming = FuzzTarget(name: "chunked-framing", summary: "the chunked framing scanner (RFC 9112 §7.1)") { data in
        func complete(_ pieces: [Data]) -> Bool {
            var scanner = ChunkedFramingScanner()
            for piece in pieces { piece.withUnsafeBytes { scanner.scan($0) } }
            return scanner.isComplete
        }
        let whole = complete([data])
        let cut = data.isEmpty ? 0 : Int(data[data.startIndex]) % (data.count + 1)
        let halves = complete([data.prefix(cut), data.dropFirst(cut)])
        require(whole == halves, "whole: \(whole), cut at \(cut): \(halves)")
        if data.count <= 4_096 {
            let bytewise = complete(data.map { Data([$0]) })
            require(whole == bytewise, "whole: \(whole), byte by byte: \(bytewise)")
        }
    }
}
