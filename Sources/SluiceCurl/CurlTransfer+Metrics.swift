import CCurl
import CCurlShim
import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Transfer metrics from curl's timing counters.
extension CurlTransfer {
    static func metrics(_ info: sluice_transfer_info) -> TransferMetrics {
        func time(_ micros: curl_off_t) -> Duration? { micros > 0 ? .microseconds(Int64(micros)) : nil }
        let version: String? =
            switch info.http_version {
            case CURL_HTTP_VERSION_1_0: "1.0"
            case CURL_HTTP_VERSION_1_1: "1.1"
            case CURL_HTTP_VERSION_2_0: "2"
            case CURL_HTTP_VERSION_3: "3"
            default: nil
            }
        return TransferMetrics(
            nameLookup: time(info.namelookup_us),
            connect: time(info.connect_us),
            tlsHandshake: time(info.appconnect_us),
            firstByte: time(info.starttransfer_us),
            total: time(info.total_us) ?? .zero,
            redirectCount: info.redirect_count,
            bytesSent: Int64(info.size_upload),
            bytesReceived: Int64(info.size_download),
            httpVersion: version,
            remoteAddress: info.primary_ip.map { String(cString: $0) },
            reusedConnection: info.num_connects == 0
        )
    }
}
