#if HTTPTypes
    import Foundation
    import HTTPTypes
    import Sluice
    import SluiceHTTPTypes
    import Testing

    @Suite struct HTTPRequestHTTPTypesTests {
        @Test func aRequestGoesToHTTPTypesAndBackUnchanged() throws {
            let url = URL(string: "https://api.example.com:8443/a%20b/c?x=1&y=%2F&x=2")!
            var request = Sluice.HTTPRequest(method: HTTPMethod(rawValue: "PROPFIND")!, url: url)
            try request.headers.append(name: "Accept", value: "application/json")
            try request.headers.append(name: "x-Trace", value: "1")
            try request.headers.append(name: "X-TRACE", value: "2")

            let head = try HTTPTypes.HTTPRequest(request)
            #expect(head.method.rawValue == "PROPFIND")
            #expect(head.scheme == "https")
            #expect(head.authority == "api.example.com:8443")
            #expect(head.path == "/a%20b/c?x=1&y=%2F&x=2")
            #expect(head.headerFields.map(\.name.rawName) == ["Accept", "x-Trace", "X-TRACE"])
            #expect(head.headerFields.map(\.value) == ["application/json", "1", "2"])

            let back = try Sluice.HTTPRequest(head)
            #expect(back.method == request.method)
            #expect(back.url == url)
            #expect(back.headers == request.headers)
        }

        @Test func anIPv6HostKeepsItsBrackets() throws {
            let head = try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "http://[::1]:8080/x")!))
            #expect(head.authority == "[::1]:8080")
            #expect(try Sluice.HTTPRequest(head).url.absoluteString == "http://[::1]:8080/x")
        }

        @Test func anEmptyPathIsTheRootAndTheFragmentIsNeverSent() throws {
            #expect(try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "https://example.com")!)).path == "/")
            #expect(try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "https://example.com/p?q#part")!)).path == "/p?q")
        }

        @Test func aURLWithoutAHostOrWithCredentialsHasNoHTTPTypesForm() {
            #expect(throws: SluiceError.self) { try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "users/42")!)) }
            do {
                _ = try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "users/42")!))
            } catch {
                #expect(error.code == .invalidURL)
                #expect(error.message == "GET users/42 has no scheme and host, so HTTPTypes.HTTPRequest cannot say where it goes")
            }
            do {
                _ = try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "https://ann:s3cret@example.com/x")!))
                Issue.record("a password went into an :authority")
            } catch {
                #expect(error.code == .invalidURL)
                #expect(!error.message.contains("s3cret"))
                #expect(
                    error.message.hasSuffix(
                        "carries a user name or password in its URL, which HTTPTypes.HTTPRequest cannot hold; send them in an Authorization field"))
            }
        }

        @Test func aFieldLeftOutOfALiteralIsAnError() {
            let request = Sluice.HTTPRequest(url: URL(string: "https://example.com/")!, headers: ["X-Token": "abc\n"])
            do {
                _ = try HTTPTypes.HTTPRequest(request)
                Issue.record("converted fields whose literal lost a field")
            } catch {
                #expect(error.code == .invalidHeader)
                #expect(error.message.contains("X-Token"))
            }
        }

        @Test(arguments: [
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/x"),
                "the GET request has no :authority, so Sluice cannot tell where to send it"
            ),
            (
                HTTPTypes.HTTPRequest(method: .connect, scheme: nil, authority: "example.com:443", path: nil),
                "the CONNECT request has no :scheme, so Sluice cannot tell where to send it"
            ),
            (HTTPTypes.HTTPRequest(method: .options, scheme: "https", authority: "example.com", path: "*"), #"the path "*" does not start with "/""#),
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "exa mple.com", path: "/"),
                #""https://exa mple.com/" (:scheme, :authority and :path) is not a valid URL"#
            ),
        ])
        func aHeadThatNamesNoURLIsAnInvalidURL(head: HTTPTypes.HTTPRequest, message: String) {
            do {
                _ = try Sluice.HTTPRequest(head)
                Issue.record("made a Sluice request of \(head)")
            } catch {
                #expect(error.code == .invalidURL)
                #expect(error.message == message)
            }
        }

        @Test func aValueSluiceRefusesIsAnInvalidHeader() {
            var head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/")
            head.headerFields.append(HTTPField(name: HTTPField.Name("X-Bell")!, lenientValue: Array("a\u{07}b".utf8)))
            do {
                _ = try Sluice.HTTPRequest(head)
                Issue.record("took a value with a control character")
            } catch {
                #expect(error.code == .invalidHeader)
                #expect(error.message.contains("X-Bell"))
            }
        }
    }
#endif
