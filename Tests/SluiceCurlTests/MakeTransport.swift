import Foundation
import SluiceCurl

/// A transport with the default configuration changed by `change`.
func makeTransport(_ change: (inout CurlTransport.Configuration) -> Void = { _ in }) -> CurlTransport {
    var configuration = CurlTransport.Configuration.default
    change(&configuration)
    return CurlTransport(configuration: configuration)
}
