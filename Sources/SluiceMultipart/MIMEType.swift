import Foundation

/// Media types guessed from a file name's extension, or from an image's first bytes: what a
/// multipart part is labelled with when you do not say.
///
/// ```swift
/// import Foundation
/// import SluiceMultipart
///
/// MIMEType.guess(forPath: "holiday.JPG")          // "image/jpeg"
/// MIMEType.guess(forPath: "notes")                // "application/octet-stream"
/// MIMEType.sniffImage(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))   // "image/png"
/// ```
public enum MIMEType {
    /// For anything not in the table.
    public static let fallback = "application/octet-stream"

    /// The type for `path`'s extension (case ignored), or ``fallback``.
    public static func guess(forPath path: String) -> String {
        byExtension[pathExtension(path)] ?? fallback
    }

    /// The lowercased text after the last `.` of `path`'s last component (`""` for none, or for a
    /// name that only starts with one), read here: Foundation's `NSString.pathExtension` traps on
    /// some names (a run of slashes before a control character), and a file name can be a peer's.
    static func pathExtension(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The usual extension for `type` (`jpg` for `image/jpeg`), when there is one.
    public static func preferredExtension(for type: String) -> String? {
        let bare = type.split(separator: ";").first.map { $0.trimmingOptionalWhitespace().lowercased() } ?? ""
        return preferred[bare] ?? byExtension.first { $0.value == bare }?.key
    }

    /// PNG, JPEG, GIF, WebP, BMP, TIFF or HEIC from the magic bytes at the start of `data`.
    public static func sniffImage(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<(offset + magic.count)]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("BM".utf8)) { return "image/bmp" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        if starts(Array("ftypheic".utf8), at: 4) || starts(Array("ftypheix".utf8), at: 4) { return "image/heic" }
        return nil
    }

    private static let preferred = ["image/jpeg": "jpg", "text/plain": "txt", "image/tiff": "tiff", "text/html": "html"]

    private static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "avif": "image/avif",
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript", "mjs": "text/javascript",
        "json": "application/json", "xml": "application/xml", "yaml": "application/yaml", "yml": "application/yaml",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "7z": "application/x-7z-compressed", "rar": "application/vnd.rar",
        "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint", "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav", "ogg": "audio/ogg", "flac": "audio/flac",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "avi": "video/x-msvideo",
        "wasm": "application/wasm", "bin": "application/octet-stream",
    ]
}
