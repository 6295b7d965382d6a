/// The per-request option that names the operation a call performs (`getUser`, an OpenAPI
/// `operationId`), so that logs, metrics and spans can say which one it was. Middleware read it;
/// nothing requires one to.
package enum OperationNameKey: RequestOptionKey {
    package static let defaultValue: String? = nil
}

extension HTTPRequest {
    /// The name of the operation this call performs, for logs, metrics and spans: an OpenAPI
    /// `operationId` (`SluiceOpenAPI` sets it for each generated call) or a name of yours. `nil`
    /// by default.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// var request = try client.makeRequest(.get, "users/42")
    /// request.operationName = "getUser"   // logged as "GET …/users/42 (getUser) -> 200 OK, …"
    /// ```
    public var operationName: String? {
        get { options[OperationNameKey.self] }
        set { options[OperationNameKey.self] = newValue }
    }
}
