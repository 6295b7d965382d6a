import Foundation
import Sluice

/// A `multipart/form-data` body (RFC 7578): text fields, data parts and files, with files streamed
/// from disk as the upload goes, never loaded whole.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceMultipart
///
/// var form = MultipartFormData()
/// form.append("Ada", name: "author")
/// form.append(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"), name: "report")   // application/pdf
/// form.append(photoBytes, name: "photo")       // an image with no name: "20261130093015.jpg"
///
/// var request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/upload")!)
/// try request.setMultipart(form)               // body and Content-Type, with Content-Length
/// var context = RequestContext()
/// context.progress = { print($0.completedBytes, "of", $0.totalBytes ?? -1) }    // upload progress
/// let response = try await pipeline.send(request, context: context)
/// ```
///
/// A part's media type is guessed from its file name when not given, and a data part that is an
/// image (by its type or its first bytes) and has no file name is named with a timestamp.
/// `Content-Length` is sent because every part's length is known when the body is
/// made; a file that changes size before it is sent fails the upload with `.invalidBody` rather
/// than sending a body that disagrees with its length.
public struct MultipartFormData: Sendable {
    /// One field of the form.
    public struct Part: Sendable {
        /// Where a part's bytes come from.
        public enum Content: Sendable {
            /// Bytes in memory.
            case data(Data)
            /// A file, streamed while the body is sent.
            case file(URL)
        }

        /// The form field's name.
        public let name: String
        /// The file name sent with it, if any.
        public let filename: String?
        /// `nil` for a plain text field, which is sent without a `Content-Type`, as browsers do.
        public let contentType: String?
        /// The part's bytes.
        public let content: Content
    }

    /// Between the parts; random unless you give one.
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [Part] = []
    /// The clock for timestamp file names.
    private let now: @Sendable () -> Date

    /// How many bytes of a file are read at a time while sending.
    public static let chunkSize = 64 * 1024

    /// An empty form with `boundary` (a random one by default).
    public init(boundary: String = MultipartFormData.makeBoundary(), now: @escaping @Sendable () -> Date = Date.init) {
        self.boundary = boundary
        self.now = now
    }

    /// `sluice-` and 32 random hex digits.
    public static func makeBoundary() -> String {
        "sluice-" + String(UInt64.random(in: .min ... .max), radix: 16) + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// `multipart/form-data; boundary=…`, for the request's `Content-Type`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    // MARK: Adding parts

    /// A text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Bytes from memory. The type is guessed from `filename` when not given, else from an image's
    /// first bytes, else `application/octet-stream`; an image without a file name gets a
    /// timestamp name (`yyyyMMddHHmmss` and its extension).
    public mutating func append(_ data: Data, name: String, filename: String? = nil, contentType: String? = nil) {
        let type =
            contentType
            ?? filename.map(MIMEType.guess(forPath:)).flatMap { $0 == MIMEType.fallback ? nil : $0 }
            ?? MIMEType.sniffImage(data)
            ?? MIMEType.fallback
        var filename = filename
        if filename == nil, type.lowercased().hasPrefix("image/") {
            filename = Self.timestampName(now(), extension: MIMEType.preferredExtension(for: type) ?? "img")
        }
        parts.append(Part(name: name, filename: filename, contentType: type, content: .data(data)))
    }

    /// A file, read while sending. `filename` defaults to the file's name and the type is guessed
    /// from it. The file is checked when the body is made (``makeBody()``).
    public mutating func append(fileAt url: URL, name: String, filename: String? = nil, contentType: String? = nil) {
        let filename = filename ?? url.lastPathComponent
        parts.append(
            Part(
                name: name, filename: filename, contentType: contentType ?? MIMEType.guess(forPath: filename),
                content: .file(url)))
    }

    // MARK: Encoding

    /// The body, streamed part by part, with its exact length. It can be sent again (a retry
    /// reads the files afresh).
    ///
    /// - Throws: `.invalidBody` for a boundary RFC 2046 does not allow, a content type with
    ///   control characters, or a file that is missing, unreadable or not a regular file.
    public func makeBody() throws(SluiceError) -> HTTPBody {
        let segments = try self.segments()
        let length = segments.reduce(Int64(0)) { $0 + $1.length }
        return .stream(
            .replayable(length: length) {
                let reader = MultipartReader(segments: segments)
                return AsyncThrowingStream(unfolding: { try reader.next() })
            })
    }

    /// The whole body in memory (files read in). For small forms and tests; send large ones with
    /// ``makeBody()``.
    public func encode() throws(SluiceError) -> Data {
        let reader = MultipartReader(segments: try segments())
        var data = Data()
        while let chunk = try reader.next() { data.append(chunk) }
        return data
    }

    /// The bytes to send, in order: each part's head, its content, the closing boundary.
    func segments() throws(SluiceError) -> [MultipartReader.Segment] {
        guard Self.isValidBoundary(boundary) else {
            throw SluiceError(.invalidBody, "the multipart boundary \(String(reflecting: boundary)) is not 1–70 characters RFC 2046 allows")
        }
        var segments: [MultipartReader.Segment] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
            if let filename = part.filename { head += "; filename=\"\(Self.escape(filename))\"" }
            head += "\r\n"
            if let type = part.contentType {
                guard !type.contains(where: { $0.isNewline || $0 == "\0" }) else {
                    throw SluiceError(
                        .invalidBody, "the content type \(String(reflecting: type)) of part \(String(reflecting: part.name)) has a line break or NUL")
                }
                head += "Content-Type: \(type)\r\n"
            }
            head += "\r\n"
            segments.append(.bytes(Data(head.utf8)))
            switch part.content {
            case .data(let data):
                segments.append(.bytes(data))
            case .file(let url):
                segments.append(.file(url, size: try Self.size(of: url, part: part.name)))
            }
            segments.append(.bytes(Data("\r\n".utf8)))
        }
        segments.append(.bytes(Data("--\(boundary)--\r\n".utf8)))
        return segments
    }

    // MARK: Helpers

    /// A form field name or file name inside quotes, as the HTML standard encodes them:
    /// `"` as `%22`, CR as `%0D`, LF as `%0A`.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=?")
        return (1...70).contains(boundary.count) && boundary.allSatisfy { allowed.contains($0) }
    }

    static func timestampName(_ date: Date, extension ext: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(c.year ?? 1970)\(two(c.month))\(two(c.day))\(two(c.hour))\(two(c.minute))\(two(c.second)).\(ext)"
    }

    static func size(of url: URL, part: String) throws(SluiceError) -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw SluiceError(.invalidBody, "cannot read the file \(url.path) for part \(String(reflecting: part)): \(reason)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw SluiceError(.invalidBody, "\(url.path) for part \(String(reflecting: part)) is not a regular file")
        }
        guard access(url.path, R_OK) == 0 else {
            throw SluiceError(.invalidBody, "cannot read the file \(url.path) for part \(String(reflecting: part)): permission denied")
        }
        return Int64(info.st_size)
    }
}

extension HTTPRequest {
    /// Sets the body to `form` (streamed) and `Content-Type` to its boundary.
    ///
    /// - Throws: what ``MultipartFormData/makeBody()`` throws.
    public mutating func setMultipart(_ form: MultipartFormData) throws(SluiceError) {
        body = try form.makeBody()
        try headers.set(name: "Content-Type", value: form.contentType)
    }
}
