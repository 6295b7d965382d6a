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
            let relative = #expect(throws: SluiceError.self) { try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "users/42")!)) }
            #expect(relative?.code == .invalidURL)
            #expect(relative?.message == "GET users/42 has no scheme and host, so HTTPTypes.HTTPRequest cannot say where it goes")
            let credentials = #expect(throws: SluiceError.self) {
                try HTTPTypes.HTTPRequest(Sluice.HTTPRequest(url: URL(string: "https://ann:s3cret@example.com/x")!))
            }
            #expect(credentials?.code == .invalidURL)
            #expect(
                credentials?.message
                    == "GET https://ann:<redacted>@example.com/x carries a user name or password in its URL, which HTTPTypes.HTTPRequest cannot hold; "
                    + "send them in an Authorization field")
        }

        @Test func aFieldLeftOutOfALiteralIsAnError() {
            let request = Sluice.HTTPRequest(url: URL(string: "https://example.com/")!, headers: ["X-Token": "abc\n"])
            let error = #expect(throws: SluiceError.self) { try HTTPTypes.HTTPRequest(request) }
            #expect(error?.code == .invalidHeader)
            #expect(error?.message == #"value of header "X-Token" has LF (0x0A) at byte 3; CR, LF and NUL are never allowed in header fields"#)
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
                #":authority "exa mple.com" is not host[:port]: it may hold no path, query, fragment, userinfo or space"#
            ),
            // Issue 41, item 4: every part stays in its place.
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com/admin", path: "/x"),
                #":authority "example.com/admin" is not host[:port]: it may hold no path, query, fragment, userinfo or space"#
            ),
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com?q=1", path: "/x"),
                #":authority "example.com?q=1" is not host[:port]: it may hold no path, query, fragment, userinfo or space"#
            ),
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com#f", path: "/x"),
                #":authority "example.com#f" is not host[:port]: it may hold no path, query, fragment, userinfo or space"#
            ),
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com:99999x", path: "/x"),
                #":authority "example.com:99999x" is not host[:port]: it may hold no path, query, fragment, userinfo or space"#
            ),
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "evil.example@example.com", path: "/x"),
                ":authority is not host[:port]: it may hold no path, query, fragment, userinfo or space (it holds userinfo, not repeated here)"
            ),
            (
                HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/x#frag"),
                #"the path "/x#frag" carries a fragment, which is never sent"#
            ),
            (HTTPTypes.HTTPRequest(method: .get, scheme: "ftp", authority: "example.com", path: "/x"), #":scheme "ftp" is not http or https"#),
        ])
        func aHeadThatNamesNoURLIsAnInvalidURL(head: HTTPTypes.HTTPRequest, message: String) {
            let error = #expect(throws: SluiceError.self) { try Sluice.HTTPRequest(head) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message == message)
        }

        @Test func aHeadThatMakesNoURLKeepsItsSecretsOutOfTheError() {
            let head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "ann:pw@exa mple.com", path: "/x?token=T0K3N")
            let error = #expect(throws: SluiceError.self) { try Sluice.HTTPRequest(head) }
            #expect(
                error?.message
                    == ":authority is not host[:port]: it may hold no path, query, fragment, userinfo or space (it holds userinfo, not repeated here)")
            let relative = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "x?token=T0K3N")
            let pathError = #expect(throws: SluiceError.self) { try Sluice.HTTPRequest(relative) }
            #expect(pathError?.message == #"the path "x?token=<redacted>" does not start with "/""#)
        }

        @Test func hostsPortsAndIPv6LiteralsConvert() throws {
            for (authority, expected) in [
                ("api.example.com", "https://api.example.com/x"), ("api.example.com:8443", "https://api.example.com:8443/x"),
                ("[::1]:8080", "https://[::1]:8080/x"), ("127.0.0.1", "https://127.0.0.1/x"), ("xn--bcher-kva.example", "https://xn--bcher-kva.example/x"),
            ] {
                let head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: authority, path: "/x")
                #expect(try Sluice.HTTPRequest(head).url.absoluteString == expected)
            }
        }

        @Test func aValueSluiceRefusesIsAnInvalidHeader() {
            var head = HTTPTypes.HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/")
            head.headerFields.append(HTTPField(name: HTTPField.Name("X-Bell")!, lenientValue: Array("a\u{07}b".utf8)))
            let error = #expect(throws: SluiceError.self) { try Sluice.HTTPRequest(head) }
            #expect(error?.code == .invalidHeader)
            #expect(error?.message == #"value of header "X-Bell" has control character byte 0x07 at byte 1; only horizontal tab is allowed"#)
        }
    }
#endif
