import Foundation
import Sluice

/// Records every call that gets a response into a ``HARRecorder``, with timings from the
/// transport's `TransferMetrics`. Calls that end in an error are not HAR entries and are
/// skipped. Position `.harRecording`, just inside logging: it sees the call once, as the caller made
/// it.
///
/// ```swift
/// import Foundation
/// import Sluice
/// import SluiceLogging
///
/// let recorder = HARRecorder()
/// builder.add(HARRecorderMiddleware(recorder: recorder))
/// _ = try await client.get("/users/42")
/// try recorder.write(to: URL(fileURLWithPath: "/tmp/session.har"))
/// ```
public struct HARRecorderMiddleware: Middleware {
    public static let defaultPosition = MiddlewarePosition.harRecording

    /// Where exchanges are recorded.
    public let recorder: HARRecorder

    /// Records every exchange into `recorder`.
    public init(recorder: HARRecorder) {
        self.recorder = recorder
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let started = Date()
        let clock = ContinuousClock.now
        let response = try await next(request, context)
        recorder.record(request: response.request ?? request, response: response, started: started, elapsed: clock.duration(to: .now))
        return response
    }
}
