import Foundation
import Sluice
import Testing

/// Issue 43, item 4: a module attaches what it knows under a typed key of its own; the core
/// stores it and never learns the key.
@Suite("Attachments")
struct AttachmentsTests {
    enum ShardKey: AttachmentKey {
        static let defaultValue: String? = nil
    }

    enum FailoversKey: ReportedAttachmentKey {
        static let defaultValue = 0
        static let reportName = "failovers"
        static func report(_ value: Int) -> ReportedValue? { value > 0 ? .count(value) : nil }
    }

    enum CanaryKey: ReportedAttachmentKey {
        static let defaultValue = false
        static let reportName = "canary"
        static func report(_ value: Bool) -> ReportedValue? { value ? .flag(true) : nil }
    }

    @Test func aKeyNobodySetGivesItsDefaultAndASetOneItsValue() {
        var response = HTTPResponse(status: .ok)
        #expect(response.attachments.isEmpty)
        #expect(response.attachments[ShardKey.self] == nil)
        #expect(response.attachments[FailoversKey.self] == 0)
        response.attachments[ShardKey.self] = "eu-2"
        response.attachments[FailoversKey.self] = 2
        response.attachments[FailoversKey.self] += 1
        #expect(response.attachments[ShardKey.self] == "eu-2")
        #expect(response.attachments[FailoversKey.self] == 3)
    }

    /// A response is a value: a copy's attachments do not change the original's.
    @Test func aCopyKeepsItsOwnAttachments() {
        var original = HTTPResponse(status: .ok)
        original.attachments[FailoversKey.self] = 1
        var copy = original
        copy.attachments[FailoversKey.self] = 5
        #expect(original.attachments[FailoversKey.self] == 1)
        #expect(copy.attachments[FailoversKey.self] == 5)
    }

    /// Observers see only reported keys, in the order they were attached, and nothing for a
    /// value whose key reports nothing.
    @Test func onlyReportedKeysAreReported() {
        var context = RequestContext()
        context.attachments[ShardKey.self] = "eu-2"
        context.attachments[CanaryKey.self] = true
        context.attachments[FailoversKey.self] = 0
        #expect(context.attachments.reported.map(\.name) == ["canary"])
        context.attachments[FailoversKey.self] = 2
        let reported = context.attachments.reported
        #expect(reported.map(\.name) == ["canary", "failovers"])
        #expect(reported.map(\.value) == [.flag(true), .count(2)])
        // A context copied down the chain carries them.
        let below = context
        #expect(below.attachments[ShardKey.self] == "eu-2")
    }
}
