// The names README and CONTRIBUTING samples take as given, as an app would have them. Type-checked
// with every sample by .ci/check-snippets; never run.
import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceHeaders
import SluiceLogging
import SluiceTesting

struct User: Codable, Sendable { let id: Int; let name: String }
struct NewUser: Codable, Sendable { let name: String }
struct Order: Codable, Sendable { let id: Int }
struct Feed: Codable, Sendable { let items: [String] }

let transport = MockTransport.successful()
let client = Client(transport: transport)
let url = URL(string: "https://api.example.com/v1/items")!
nonisolated(unsafe) var request = HTTPRequest(url: url)
nonisolated(unsafe) var builder = Client.Builder(transport: transport)
let file = FileHandle.standardOutput

enum Tokens { static func current() async throws -> String { "token" } }
let tokens = Tokens.self
