import Foundation
import Sluice
import SluiceCurl
import SluiceMultipart
import SluiceTestSupport
import SluiceTesting
import Testing

/// 2026-11-30 09:30:15 UTC.
let fixedNow: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_796_031_015) }

@Suite struct MultipartEncodingTests {
    @Test func theBodyIsExactlyRFC7578() throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-multipart")
        let notes = try scratch.write(Data("line one\nline two\n".utf8), to: "notes.txt")
        var form = MultipartFormData(boundary: "XyZ", now: fixedNow)
        form.append("Ada Lovelace", name: "author")
        form.append(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00]), name: "photo")
        form.append(fileAt: notes, name: "attachment")
        form.append(Data("{}".utf8), name: "meta \"quoted\"", filename: "m.json")
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"author\"\r\n\r\n"
            + "Ada Lovelace\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"photo\"; filename=\"20261130093015.png\"\r\n"
            + "Content-Type: image/png\r\n\r\n"
            + "\u{89}PNG\r\n\u{1A}\n\0\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"attachment\"; filename=\"notes.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\n"
            + "line one\nline two\n\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"meta %22quoted%22\"; filename=\"m.json\"\r\n"
            + "Content-Type: application/json\r\n\r\n"
            + "{}\r\n"
            + "--XyZ--\r\n"
        var expectedBytes = Data()
        for scalar in expected.unicodeScalars {
            // The PNG signature's 0x89 is one byte, not UTF-8: build the expectation byte by byte.
            if scalar.value < 0x100 { expectedBytes.append(UInt8(scalar.value)) } else { expectedBytes.append(contentsOf: Array(String(scalar).utf8)) }
        }
        let encoded = try form.encode()
        #expect(encoded == expectedBytes)
        let body = try form.makeBody()
        #expect(body.length == Int64(encoded.count))
        #expect(body.isReplayable)
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
    }

    @Test func theStreamedBodyEqualsTheEncodedOneAndCanBeReadTwice() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-multipart")
        let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var form = MultipartFormData()
        form.append("x", name: "a")
        form.append(fileAt: try scratch.write(big, to: "big.bin"), name: "big")
        let body = try form.makeBody()
        let first = try await body.collect()
        let second = try await body.collect()
        #expect(first == (try form.encode()))
        #expect(second == first)
        #expect(Int64(first.count) == body.length)
    }

    @Test(arguments: [
        ("photo.JPG", "image/jpeg"), ("a.tar.gz", "application/gzip"), ("doc.pdf", "application/pdf"),
        ("clip.mov", "video/quicktime"), ("README", "application/octet-stream"), ("x.unknownext", "application/octet-stream"),
        ("/var/tmp/report.PDF", "application/pdf"), (".bashrc", "application/octet-stream"), ("dir.d/notes", "application/octet-stream"),
        ("photo.jpg/", "image/jpeg"), ("trailing.", "application/octet-stream"),
        // Issue 53, item 14: the fuzz target's find. Foundation's pathExtension trapped on this name.
        ("///////////////////////\u{1F}", "application/octet-stream"),
    ])
    func typesAreGuessedFromTheExtension(path: String, type: String) {
        #expect(MIMEType.guess(forPath: path) == type)
    }

    @Test func imagesWithoutANameGetATimestampNameAndOthersDoNot() throws {
        var form = MultipartFormData(boundary: "b", now: fixedNow)
        form.append(Data([0xFF, 0xD8, 0xFF, 0xE0]), name: "jpeg")
        form.append(Data("GIF89a...".utf8), name: "gif")
        form.append(Data([1, 2, 3]), name: "typed", contentType: "image/webp")
        form.append(Data([1, 2, 3]), name: "blob")
        #expect(form.parts.map(\.filename) == ["20261130093015.jpg", "20261130093015.gif", "20261130093015.webp", nil])
        #expect(form.parts.map(\.contentType) == ["image/jpeg", "image/gif", "image/webp", "application/octet-stream"])
    }
}

@Suite struct MultipartErrorTests {
    func error(_ form: MultipartFormData) -> SluiceError? {
        do {
            _ = try form.makeBody()
            return nil
        } catch {
            return error
        }
    }

    @Test func aMissingFileIsNamed() throws {
        var form = MultipartFormData()
        form.append(fileAt: URL(fileURLWithPath: "/nonexistent/photo.jpg"), name: "photo")
        #expect(error(form)?.code == .invalidBody)
        #expect(error(form)?.message == #"cannot read the file /nonexistent/photo.jpg for part "photo": No such file or directory"#)
    }

    @Test func aDirectoryIsNotAFile() throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-multipart")
        var form = MultipartFormData()
        form.append(fileAt: scratch.url, name: "dir")
        #expect(error(form)?.message == "\(scratch.url.path) for part \"dir\" is not a regular file")
    }

    @Test func aBadBoundaryOrContentTypeIsRefused() {
        var form = MultipartFormData(boundary: "has space and \"quote\"")
        form.append("v", name: "n")
        #expect(error(form)?.message == #"the multipart boundary "has space and \"quote\"" is not 1–70 characters RFC 2046 allows"#)
        var injected = MultipartFormData(boundary: "b")
        injected.append(Data("x".utf8), name: "f", filename: "f.txt", contentType: "text/plain\r\nX-Evil: 1")
        #expect(error(injected)?.message == #"the content type "text/plain\r\nX-Evil: 1" of part "f" has a line break or NUL"#)
    }

    @Test func aFileThatChangesSizeFailsTheUploadInsteadOfSendingAWrongBody() async throws {
        let scratch = try TemporaryDirectory(prefix: "sluice-multipart")
        let file = try scratch.write(Data("0123456789".utf8), to: "growing.log")
        var form = MultipartFormData(boundary: "b")
        form.append(fileAt: file, name: "log")
        let body = try form.makeBody()
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()
        await #expect {
            _ = try await body.collect()
        } throws: { error in
            (error as? SluiceError)?.code == .invalidBody
                && (error as? SluiceError)?.message == "\(file.path) changed size while it was being sent: 10 bytes when the form was made, more now"
        }
        try Data("0123".utf8).write(to: file)
        await #expect {
            _ = try await body.collect()
        } throws: { error in
            (error as? SluiceError)?.message == "\(file.path) changed size while it was being sent: 10 bytes when the form was made, 4 now"
        }
    }
}
