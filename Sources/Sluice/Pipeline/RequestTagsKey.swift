/// The per-request option that labels a request for ``Client`` management: cancel every request
/// with a tag, or ask whether all of them have finished.
///
/// ```swift
/// import Sluice
///
/// var request = try client.makeRequest(.get, "feed")
/// request.tags = ["home-screen"]
/// async let feed = client.send(request)
/// client.cancel(tag: "home-screen")      // the user left the screen
/// client.isFinished(tags: ["home-screen"])
/// ```
public enum RequestTagsKey: RequestOptionKey {
    public static let defaultValue: Set<String> = []
}

extension HTTPRequest {
    /// Labels for ``Client/cancel(tag:)`` and ``Client/isFinished(tags:)``; none by default.
    public var tags: Set<String> {
        get { options[RequestTagsKey.self] }
        set { options[RequestTagsKey.self] = newValue }
    }
}
