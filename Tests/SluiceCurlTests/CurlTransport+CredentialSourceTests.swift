import Foundation
import Sluice
import SluiceCurl
import Testing

@Suite("CurlTransport as a CredentialSource")
struct CurlTransportCredentialSourceTests {
    let transport = CurlTransport()

    func added(_ url: String) async -> AddedCredentials? {
        await transport.credentials(for: HTTPRequest(url: URL(string: url)!))
    }

    @Test func aUserInTheURLIsBasicAuthorization() async throws {
        let withPassword = try #require(await added("https://ann:pw@api.example.com/me"))
        #expect(withPassword.fields == ["authorization"])
        #expect(withPassword.identity == "userinfo ann:pw")
        #expect(await added("http://ann@127.0.0.1:8080/me")?.fields == ["authorization"])
    }

    @Test func anAtSignOutsideTheAuthorityIsNoUser() async {
        #expect(await added("https://api.example.com/people/ann@example.com?cc=@bob#@x") == nil)
        #expect(await added("https://api.example.com") == nil)
    }
}
