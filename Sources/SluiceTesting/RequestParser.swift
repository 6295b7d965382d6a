import Foundation

/// Reads HTTP/1.1 requests for ``MockWebServer``: the request line, header fields, and a body
/// framed by `Content-Length` or chunked transfer coding. Malformed input throws
/// ``RequestParser/Failure`` (the server answers 400 and closes).
enum RequestParser {
    enum Failure: Error, Equatable {
        case headTooLarge
        case truncated
        case badRequestLine(String)
        case badHeader(String)
        case badContentLength(String)
        case badChunk
    }

    /// The largest request head accepted.
    static let maxHeadSize = 64 * 1024

    /// The next request, or nil at a clean end of stream between requests.
    static func read(from reader: inout SocketReader, connection: Int, bodyLimit: Int = .max) throws(Failure) -> MockWebServer.RecordedRequest? {
        var headEnd: Int?
        while true {
            headEnd = find(reader.buffer, from: reader.start, pattern: [13, 10, 13, 10])
            if headEnd != nil { break }
            if reader.buffer.count - reader.start > maxHeadSize { throw .headTooLarge }
            let hadBytes = reader.buffer.count > reader.start
            guard reader.fill() else {
                if hadBytes { throw .truncated }
                return nil
            }
        }
        let head = String(decoding: reader.buffer[reader.start..<headEnd!], as: UTF8.self)
        reader.start = headEnd! + 4
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1].first == "/" || parts[1] == "*" || parts[1].contains("://"),
            parts[2].hasPrefix("HTTP/1.")
        else {
            throw .badRequestLine(requestLine)
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
            else {
                throw .badHeader(line)
            }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }

        var body = [UInt8]()
        var bodyLength = 0
        var trailers: [(name: String, value: String)] = []
        if header("transfer-encoding")?.lowercased().contains("chunked") == true {
            while true {
                let line = try readLine(&reader)
                let sizeText = line.split(separator: ";").first.map(String.init) ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else { throw .badChunk }
                if size == 0 {
                    while case let trailer = try readLine(&reader), !trailer.isEmpty {
                        guard let colon = trailer.firstIndex(of: ":"), colon != trailer.startIndex else { throw .badHeader(trailer) }
                        trailers.append((String(trailer[..<colon]), trailer[trailer.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                    }
                    break
                }
                try readBytes(&reader, count: size, into: &body, keeping: bodyLimit)
                bodyLength += size
                guard try readLine(&reader).isEmpty else { throw .badChunk }
            }
        } else if let lengthText = header("content-length") {
            guard let length = Int(lengthText), length >= 0 else { throw .badContentLength(lengthText) }
            try readBytes(&reader, count: length, into: &body, keeping: bodyLimit)
            bodyLength = length
        }
        var recorded = MockWebServer.RecordedRequest(
            method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers,
            body: Data(body), bodyLength: bodyLength, connection: connection
        )
        recorded.trailers = trailers
        return recorded
    }

    private static func readLine(_ reader: inout SocketReader) throws(Failure) -> String {
        while true {
            if let end = find(reader.buffer, from: reader.start, pattern: [13, 10]) {
                let line = String(decoding: reader.buffer[reader.start..<end], as: UTF8.self)
                reader.start = end + 2
                return line
            }
            if reader.buffer.count - reader.start > maxHeadSize { throw .badChunk }
            guard reader.fill() else { throw .truncated }
        }
    }

    /// Consumes `count` bytes, appending them to `body` while it is shorter than `keeping`.
    private static func readBytes(_ reader: inout SocketReader, count: Int, into body: inout [UInt8], keeping limit: Int) throws(Failure) {
        var remaining = count
        while remaining > 0 {
            if reader.start == reader.buffer.count {
                guard reader.fill() else { throw .truncated }
            }
            let take = min(remaining, reader.buffer.count - reader.start)
            let keep = min(take, max(0, limit - body.count))
            if keep > 0 { body += reader.buffer[reader.start..<reader.start + keep] }
            reader.start += take
            remaining -= take
        }
    }

    private static func find(_ buffer: [UInt8], from start: Int, pattern: [UInt8]) -> Int? {
        guard buffer.count - start >= pattern.count else { return nil }
        var index = start
        while index <= buffer.count - pattern.count {
            if buffer[index] == pattern[0] && buffer[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
