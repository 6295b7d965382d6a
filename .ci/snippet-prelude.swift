// The values the doc comments' samples take as given, as an app would have them where the sample
// would sit (the app's own types are in snippet-prelude-app.swift). Type-checked with every doc
// comment sample by .ci/check-snippets; never run.
import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceHeaders
import SluiceLogging
import SluiceTesting


let transport = MockTransport.successful()
let client = Client(transport: transport)
let url = URL(string: "https://api.example.com/v1/items")!
nonisolated(unsafe) var request = HTTPRequest(url: url)
nonisolated(unsafe) var builder = Client.Builder(transport: transport)
let file = FileHandle.standardOutput

let tokens = Tokens.self

// For the doc comments' samples: the values an app has at hand where the sample would sit.
import SluiceHUD
import SluiceOutbox
import SluiceReachability

let pipeline = Pipeline(middlewares: [], transport: transport)
let store = MemoryCacheStore()
let context = RequestContext()
let response = HTTPResponse(status: .ok)
let key = Data("secret-key".utf8)
let secret = "secret"
let path = "/var/lib/app/data.sqlite"
let support = "/var/lib/app"
let bigJSON = Data("{}".utf8)
let photoBytes = Data()
let report = Data()
let note = Data("note".utf8)
let server = try! MockWebServer()
let outbox = try! Outbox(path: "/tmp/outbox.sqlite", transport: transport)
let monitor = try! LinuxReachabilityMonitor()
let recorder = HARRecorder()
let staleToken = "stale"
let session = "session"

let keychain = Keychain.self
let authClient = AuthClient.self

func showOfflineBanner() {}
func showWiFiIcon() {}
func render(_ value: Any, stale: Bool = false) {}
func update(_ value: Any) {}
func pauseReading() {}
func resumeReading() {}

typealias MyMiddleware = AuditMiddleware
let isoURL = URL(string: "https://cdimage.debian.org/debian.iso")!
let fileURL = URL(fileURLWithPath: "/tmp/upload.bin")
let destination = URL(fileURLWithPath: "/tmp/download.bin")
let logURL = URL(fileURLWithPath: "/tmp/app.log")
let checksum = "3a1c"
let deviceID = "device-1"
let appSecret = "app-secret"
let cachesDirectory = "/var/cache/app"
let json = "{}"
let order = Order(id: 1)
let handle = FileHandle.standardOutput
let chunk = Data()
let chunks = AsyncThrowingStream<Data, any Error> { $0.finish() }
let apiKey = "k3y"
let chain: ChainHandle = { fatalError("type-checked only") }()
struct TimingMiddleware: Middleware {
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        try await next(request, context)
    }
}
let banner = Banner.self

/// The in-house middleware the samples add.
struct TenantMiddleware: Middleware {
    let tenant: String
    func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        try request.headers.set(name: "X-Tenant", value: tenant)
        return try await next(request, context)
    }
}

/// Keys the payload-encryption samples take as given.
let sharedSecret = Data(repeating: 7, count: 16)
let newKey = Data(repeating: 1, count: 16)
let oldKey = Data(repeating: 2, count: 16)
let thirtyTwoByteKey = Data(repeating: 3, count: 32)
