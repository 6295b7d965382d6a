import CCurl
import CCurlShim
import Foundation
import Sluice

/// curl's cookie engine for one transport: a share handle holding the cookies (and the DNS and
/// TLS-session caches) that every event thread's easy handles use, loaded from and saved to a
/// Netscape cookie file when the jar is file-backed.
///
/// Cookie files are written whole to a private (0600) file beside the jar and renamed over it, so a
/// reader (another transport, another process) sees the old jar or the new one, never a part:
/// curl's own save truncates the target before it writes its temporary file, and a transport that
/// loaded the jar in that moment started without cookies. Session cookies are credentials, so the
/// file is the owner's alone whatever the process's umask.
///
/// Each call of a `sluice_cookies_*` helper binds its result with an explicit `CURLcode` type:
/// left to inference, Swift 6.3 then fails to find other `CURLcode` constants (such as
/// `CURLE_UNSUPPORTED_PROTOCOL`) in files compiled in the same batch.
final class CurlCookieJar: @unchecked Sendable {
    // @unchecked: `share` is used from every event thread and from the helpers below at once;
    // curl serialises that through the lock callbacks installed by
    // `sluice_share_enable_locking`, one mutex per kind of shared data. `file` never changes.

    let share: UnsafeMutableRawPointer
    private let locks: UnsafeMutableRawPointer?
    /// Where the jar is saved; `nil` keeps it in memory.
    let file: String?

    init(_ storage: CurlTransport.Configuration.CookieJar) {
        share = curl_share_init()
        locks = sluice_share_enable_locking(share)
        sluice_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        sluice_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        sluice_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        switch storage {
        case .memory:
            file = nil
        case .file(let path):
            file = path
            if FileManager.default.fileExists(atPath: path) {
                let loaded: CURLcode = sluice_cookies_load(share, path)
                _ = loaded
            }
        }
    }

    deinit {
        // Every easy handle using the share has been cleaned up: the loops hold the jar until
        // their threads have destroyed their handles.
        if let file { try? Self.write(share, to: file) }
        curl_share_cleanup(share)
        sluice_share_free_locking(locks)
    }

    /// Turns the cookie engine on for a new easy handle (the jar's cookies, nothing loaded).
    func enable(on handle: UnsafeMutableRawPointer) {
        sluice_easy_setopt_string(handle, CURLOPT_COOKIEFILE, "")
    }

    /// Every cookie, one Netscape cookie-file line each (`domain TAB flag TAB path TAB secure TAB
    /// expiry TAB name TAB value`, the domain prefixed `#HttpOnly_` for an HttpOnly cookie), read
    /// from the share in memory.
    var lines: [String] {
        guard let list = sluice_cookies_list(share) else { return [] }
        defer { curl_slist_free_all(list) }
        var lines: [String] = []
        var node: UnsafeMutablePointer<curl_slist>? = list
        while let current = node {
            if let data = current.pointee.data { lines.append(String(cString: data)) }
            node = current.pointee.next
        }
        return lines
    }

    /// Adds cookies, one Netscape cookie-file line each (as ``lines`` gives them).
    func add(_ lines: [String]) {
        for line in lines where !line.isEmpty && !line.contains("\n") {
            let added: CURLcode = sluice_cookies_add(share, line)
            _ = added
        }
    }

    func clear() {
        let cleared: CURLcode = sluice_cookies_clear(share)
        _ = cleared
    }

    /// Writes the jar to its file (nothing for a memory jar).
    func save() throws(SluiceError) {
        guard let file else { return }
        try Self.write(share, to: file)
    }

    /// Writes every cookie in `share` to a new private file beside `file`, then renames it over
    /// `file` in one step (a symbolic link at `file` is replaced, never followed).
    static func write(_ share: UnsafeMutableRawPointer, to file: String) throws(SluiceError) {
        let temporary = "\(file).\(UUID().uuidString.prefix(8)).saving"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SluiceError(.writeFailed, "cannot save the cookie jar to \(file): \(String(cString: strerror(errno)))")
        }
        close(fd)
        let result: CURLcode = sluice_cookies_flush(share, temporary)
        guard result.rawValue == 0 else {
            unlink(temporary)
            throw SluiceError(.writeFailed, "cannot save the cookie jar to \(file): curl error \(result.rawValue)")
        }
        guard rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SluiceError(.writeFailed, "cannot save the cookie jar to \(file): \(reason)")
        }
    }
}
