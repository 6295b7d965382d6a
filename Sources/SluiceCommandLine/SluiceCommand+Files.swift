import Foundation
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// Where bodies go (`-o`, `-d` without a name) and what the user typed (a password at a prompt,
/// the secrets `--print` may show).
extension SluiceCommand {
    /// The file a `-d` without a name saves to, as httpie names it: the URL's last path segment
    /// (`index` when there is none), never an existing file unless continuing (`-c`): `name-1`,
    /// `name-2`, … instead.
    static func downloadName(for url: URL, resuming: Bool, exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        var name = url.lastPathComponent
        if name.isEmpty || name == "/" || name == "." || name == ".." { name = "index" }
        name = String(name.map { $0 == "/" || $0 == "\0" || $0.isNewline ? "_" : $0 })
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        guard !resuming, exists(name) else { return name }
        var suffix = 1
        while exists("\(name)-\(suffix)") { suffix += 1 }
        return "\(name)-\(suffix)"
    }

    /// Writes the body of `response` to `path`; a stream chunk by chunk as it arrives, never
    /// gathered in memory.
    static func save(_ response: HTTPResponse, to path: String) async throws {
        func failed(_ error: any Error) -> SluiceError {
            SluiceError(.writeFailed, "cannot write \(path): \((error as NSError).localizedDescription)")
        }
        guard let stream = response.bodyStream else {
            do { return try response.body.write(to: URL(fileURLWithPath: path)) } catch { throw failed(error) }
        }
        let file: FileHandle
        do {
            guard FileManager.default.createFile(atPath: path, contents: response.body) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
            file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try file.seekToEnd()
        } catch {
            throw failed(error)
        }
        defer { try? file.close() }
        for try await chunk in stream {
            do { try file.write(contentsOf: chunk) } catch { throw failed(error) }
        }
    }

    /// A password asked for on the terminal, without echo, as httpie asks for one.
    ///
    /// - Throws: ``UsageError`` when there is no terminal to ask on.
    static func askPassword(user: String, host: String) throws(UsageError) -> String {
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard isatty(STDIN_FILENO) == 1, terminal >= 0 else {
            if terminal >= 0 { close(terminal) }
            throw UsageError("--auth \(user) has no password and there is no terminal to ask for one on: give USER:PASSWORD")
        }
        defer { close(terminal) }
        let prompt = "sluice: password for \(user)@\(host): ".escapingControlCharacters()
        _ = prompt.withCString { Glibc.write(terminal, $0, strlen($0)) }
        var saved = termios()
        let canHide = tcgetattr(terminal, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(terminal, TCSAFLUSH, &hidden)
        }
        defer {
            if canHide { tcsetattr(terminal, TCSAFLUSH, &saved) }
            _ = Glibc.write(terminal, "\n", 1)
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(terminal, &byte, 1) == 1, byte != 0x0A, byte != 0x0D {
            bytes.append(byte)
            guard bytes.count <= 4096 else { throw UsageError("the password typed is longer than 4096 bytes") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The secrets the user typed: header items, the `Authorization` that `--auth` makes, and
    /// the names of query parameters in the URL and in `==` items. `--print` and `--offline`
    /// show these as typed.
    static func typedSecrets(_ invocation: Invocation) throws -> OutputOptions.ShownSecrets {
        var shown = OutputOptions.ShownSecrets()
        for case .header(let name, let value) in invocation.items { shown.fields.append((name, value.trimmingOptionalWhitespace())) }
        for case .query(let name, _) in invocation.items { shown.queryNames.insert(name.lowercased()) }
        if let query = URL(string: invocation.url)?.query(percentEncoded: true) {
            for pair in query.split(separator: "&") {
                let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                shown.queryNames.insert((PercentEncoding.decode(name, plusIsSpace: true) ?? name).lowercased())
            }
        }
        if let credentials = invocation.auth, let field = try authorization(credentials, type: invocation.authType ?? .basic) {
            shown.fields.append(("Authorization", field))
        }
        return shown
    }
}
