import Foundation
import Sluice
import SluiceMultipart

extension FuzzTarget {
    /// A multipart form whose field name, file name, content type and content come from the
    /// input (cut at NUL bytes): it is refused with `.invalidBody` or encoded with exactly one
    /// head line per header it means (no name or type can add a line), its closing boundary last,
    /// and the streamed body's declared length is the encoded length.
    static let multipart = FuzzTarget(name: "multipart", summary: "multipart/form-data encoding of hostile names and types") { data in
        let parts = strings(data) + ["", "", "", ""]
        var form = MultipartFormData(boundary: "sluice-fuzz-boundary", now: { Date(timeIntervalSince1970: 0) })
        form.append(Data(parts[3].utf8), name: parts[0], filename: parts[1].isEmpty ? nil : parts[1], contentType: parts[2].isEmpty ? nil : parts[2])
        form.append(parts[0], name: parts[1])
        do throws(SluiceError) {
            let encoded = try form.encode()
            require(encoded.suffix(26) == Data("--sluice-fuzz-boundary--\r\n".utf8), "the closing boundary is not last")
            guard let headEnd = encoded.firstRange(of: Data("\r\n\r\n".utf8)) else { return require(false, "no end of the first part's head") }
            let head = encoded[..<headEnd.lowerBound].split(separator: Data("\r\n".utf8))
            require(head.count == 3, "the first part's head has \(head.count) lines, not boundary, disposition and type")
            if case .stream(let stream) = try form.makeBody() {
                require(stream.length == Int64(encoded.count), "declared \(String(describing: stream.length)), encoded \(encoded.count)")
            }
        } catch {
            require(error.code == .invalidBody, "encoding failed with \(error.code): \(error)")
        }
    }
}
