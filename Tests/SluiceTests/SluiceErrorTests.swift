import Foundation
import Sluice
import Testing

@Suite("SluiceError")
struct SluiceErrorTests {
    @Test func codesMatchInCatchClauses() {
        do {
            throw SluiceError(.timedOut, "slow")
        } catch SluiceError.Code.timedOut {
            // matched
        } catch {
            Issue.record("did not match by code: \(error)")
        }
    }

    @Test func descriptionNamesStageCodeAndCause() {
        struct Cause: Error {}
        let error = SluiceError(.other, "it broke", underlying: Cause(), stage: .client)
        #expect(error.description.hasPrefix("[client] other: it broke (caused by "))
        #expect(SluiceError(.offline, "no network").description == "offline: no network")
        #expect(SluiceError(.offline, "no network").localizedDescription == "offline: no network")
    }

    @Test func attributionRules() {
        struct Mine: Error {}
        let stage = PipelineStage.client
        #expect(SluiceError.attributing(CancellationError(), to: stage) is CancellationError)
        let wrapped = SluiceError.attributing(Mine(), to: stage) as? SluiceError
        #expect(wrapped?.code == .other && wrapped?.stage == stage && wrapped?.underlying is Mine)
        let filled = SluiceError.attributing(SluiceError(.offline, "x"), to: stage) as? SluiceError
        #expect(filled?.stage == stage && filled?.code == .offline)
    }
}
