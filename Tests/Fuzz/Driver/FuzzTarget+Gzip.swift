import Foundation
import Sluice
import SluiceGzip

extension FuzzTarget {
    /// `GzipCodec.decompress` as gzip, deflate, br and zstd, with a 1 MiB limit: output stays within the
    /// limit and failures are `.invalidResponse` or `.bodyTooLarge`. Also `compress` then
    /// `decompress` gives the input back.
    static let gzip = FuzzTarget(name: "gzip", summary: "gzip, deflate, br and zstd decoding") { data in
        let limits = GzipCodec.Limits(maximumSize: 1 << 20, maximumRatio: 1_000)
        for format in GzipCodec.Format.allCases {
            do throws(SluiceError) {
                let decoded = try GzipCodec.decompress(data, format: format, limits: limits)
                require(decoded.count <= limits.maximumSize, "\(format) decoded \(decoded.count) bytes past the limit")
            } catch {
                require(
                    error.code == .invalidResponse || error.code == .bodyTooLarge,
                    "\(format) decoding failed with \(error.code): \(error)")
            }
        }
        do throws(SluiceError) {
            let compressed = try GzipCodec.compress(data)
            let roundTrip = try GzipCodec.decompress(compressed, format: .gzip, limits: .init(maximumSize: max(data.count, 1), maximumRatio: .max))
            require(roundTrip == data, "compress then decompress changed \(data.count) bytes")
        } catch {
            require(false, "a round trip of \(data.count) bytes failed: \(error)")
        }
    }
}
