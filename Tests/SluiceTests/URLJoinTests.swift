import Foundation
import Sluice
import Testing

/// The one rule that joins a base URL and a path (``URLJoin``): a client's `url(for:)`, a
/// relative request sent by any door, and the OpenAPI transport's server URL and path.
@Suite("URLJoin")
struct URLJoinTests {
    let base = URL(string: "https://api.example.com/v1")!

    @Test(arguments: [
        ("https://api.example.com/v1", "users"), ("https://api.example.com/v1/", "users"),
        ("https://api.example.com/v1", "/users"), ("https://api.example.com/v1/", "/users"),
        ("https://api.example.com/v1//", "//users"),
    ])
    func baseURLJoinsWithExactlyOneSlash(base: String, path: String) throws {
        #expect(try URLJoin.join(path, to: URL(string: base)!).absoluteString == "https://api.example.com/v1/users")
    }

    @Test func joinKeepsQueryAndPassesAbsoluteURLs() throws {
        #expect(try URLJoin.join("users?id=1&x=y", to: base).absoluteString == "https://api.example.com/v1/users?id=1&x=y")
        #expect(try URLJoin.join("http://other.example.org/a", to: base).absoluteString == "http://other.example.org/a")
        #expect(try URLJoin.join("", to: base).absoluteString == "https://api.example.com/v1")
    }

    /// `join` parses a path as an absolute URL only when it starts with a scheme's syntax; that
    /// skips no URL Foundation would give a scheme: every string here that it does is caught.
    @Test func onlyAPathWithASchemeIsTriedAsAbsolute() throws {
        let paths = [
            "https://x.example/a", "HTTP://X.EXAMPLE", "a:b", "web+app://x", "x-y.z:1", "users", "users/42?q=a:b", "/a:b", "//host/x",
            "1http://x", " http://x", "-x:y", ".x:y", "é:x", "h\u{0301}ttp://x", "?a=b:c", "#f:g", "", ":", "a", "urn:isbn:1",
            "mailto:a@b.example", "http:x", "http:/x",
        ]
        for path in paths {
            let foundationScheme = URL(string: path)?.scheme.map { !$0.isEmpty } ?? false
            if foundationScheme { #expect(URLJoin.startsWithScheme(path), "\(path)") }
        }
        #expect(!URLJoin.startsWithScheme("users/42?q=a:b"))
        #expect(!URLJoin.startsWithScheme("1http://x"))
        #expect(try URLJoin.join("users/a:b", to: base).absoluteString == "https://api.example.com/v1/users/a:b")
        #expect(try URLJoin.join("HTTPS://other.example.org/a", to: base).absoluteString == "HTTPS://other.example.org/a")
    }

    @Test func relativePathWithoutBaseURLIsAnInvalidURL() {
        #expect {
            try URLJoin.join("/users", to: nil)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidURL && error?.stage == .client
                && error?.message == #""/users" is not an absolute URL and the client has no base URL"#
        }
    }

    @Test func unparsableAbsoluteURLIsAnInvalidURL() {
        #expect {
            try URLJoin.join("http://[::1/x", to: base)
        } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidURL && error?.message == #""http://[::1/x" is not a valid absolute URL"#
        }
    }

    /// The base URL's own query stays, before the path's: an API key in the base URL is kept.
    @Test(arguments: [
        ("https://api.example.com/v1?key=K", "users", "https://api.example.com/v1/users?key=K"),
        ("https://api.example.com/v1/?key=K", "/users?page=2", "https://api.example.com/v1/users?key=K&page=2"),
        ("https://api.example.com/v1?key=K#top", "users#part", "https://api.example.com/v1/users?key=K#part"),
        ("https://api.example.com/v1#top", "users", "https://api.example.com/v1/users"),
    ])
    func theBasesQueryComesFirstAndItsFragmentIsDropped(base: String, path: String, expected: String) throws {
        #expect(try URLJoin.join(path, to: URL(string: base)!).absoluteString == expected)
    }

    /// An error quotes the path and the join through the default privacy policy: a secret in
    /// either (an API key in the base URL's query, a token in the path) is never in the message.
    @Test func anErrorHidesTheSecretsOfThePathAndTheBase() {
        #expect {
            try URLJoin.join("users?token=T0K", to: nil)
        } throws: { error in
            (error as? SluiceError)?.message == #""users?token=<redacted>" is not an absolute URL and the client has no base URL"#
        }
        #expect {
            try URLJoin.join("http://[::1/x?token=T0K", to: base)
        } throws: { error in
            (error as? SluiceError)?.message == #""http://[::1/x?token=<redacted>" is not a valid absolute URL"#
        }
    }

    /// A `://` in a relative path's query is data, not a broken absolute URL.
    @Test func aURLInARelativePathsQueryIsData() throws {
        #expect(
            try URLJoin.join("redirect?to=https://other.example", to: base).absoluteString == "https://api.example.com/v1/redirect?to=https://other.example")
        #expect(try URLJoin.join("a/b://c", to: base).absoluteString == "https://api.example.com/v1/a/b://c")
    }
}
