import SluiceTesting

extension MockWebServer {
    /// A server that holds every answer until `gate` opens (30 s at most), then answers `status`
    /// with `body`: calls in flight as long as a test needs them.
    static func holding(until gate: TestGate, status: Int = 200, body: String = "ok") throws -> MockWebServer {
        let server = try MockWebServer()
        server.setHandler { _ in
            gate.wait(timeout: .seconds(30))
            return .init(status: status, body: body)
        }
        return server
    }
}
