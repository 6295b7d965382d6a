import Foundation
@_spi(Fuzzing) import SluiceTesting

extension FuzzTarget {
    /// MockWebServer's request parser on one connection's bytes: it stops at a clean end or a
    /// fault, keeps at most the body limit, and never reports more body than the input held.
    static let mockRequest = FuzzTarget(name: "mock-request", summary: "MockWebServer's request parser") { data in
        let bodyLimit = 64
        let (requests, _) = MockWebServer.parseRequests(Array(data), bodyLimit: bodyLimit)
        var bodyBytes = 0
        for request in requests {
            require(request.body.count <= bodyLimit, "kept \(request.body.count) body bytes past the limit")
            require(request.body.count <= request.bodyLength, "kept more body than the request had")
            require(!request.method.isEmpty, "a request with no method")
            bodyBytes += request.bodyLength
        }
        require(bodyBytes <= data.count, "\(bodyBytes) body bytes from a \(data.count)-byte input")
    }
}
