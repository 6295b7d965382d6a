import Foundation
import SluiceTestSupport
import SluiceTesting
import Testing

/// `make test` runs every fuzz target over its seed corpus (and over any crash input saved there
/// after a fix), so a regression that fuzzing once found fails the ordinary tests.
@Suite("The fuzz targets over their seed corpora")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    static let targets = [
        "cache-control", "http-date", "url", "http-fields", "gzip", "mock-request", "har", "command-line", "xml", "terminal-text",
        "redis-reply", "rate-limit-fields", "server-sent-events", "multipart", "aes128gcm", "jwe-compact", "chunked-framing",
    ]

    struct Output {
        let status: Int32
        let text: String
    }

    static func fuzz(_ arguments: [String]) async throws -> Output {
        let process = Process()
        process.executableURL = try BuiltProducts.executable("sluice-fuzz")
        process.arguments = arguments
        let (data, status) = try await Blocking.output(of: process, mergingErrors: true)
        return Output(status: status, text: String(decoding: data, as: UTF8.self))
    }

    @Test func everyTargetHasACorpusAndNoCorpusIsOrphaned() async throws {
        let listed = try await Self.fuzz(["list"])
        #expect(listed.status == 0)
        let names = listed.text.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        #expect(names == Self.targets)
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(folders == Self.targets.sorted())
    }

    @Test(arguments: targets)
    func everySeedKeepsEveryProperty(_ target: String) async throws {
        let folder = Self.corpus.appendingPathComponent(target)
        let count = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.count
        #expect(count >= 6, "a seed corpus worth fuzzing from")
        let output = try await Self.fuzz(["replay", target, folder.path])
        #expect(output.status == 0, "\(output.text)")
        #expect(output.text.hasPrefix("\(target): \(count) inputs, "), "\(output.text)")
        #expect(output.text.contains("every property held"))
    }

    @Test func anUnknownTargetIsAUsageError() async throws {
        let output = try await Self.fuzz(["replay", "no-such-target", Self.corpus.path])
        #expect(output.status == 2)
        #expect(output.text == "sluice-fuzz: no target no-such-target; see sluice-fuzz list\n")
    }

    @Test func fuzzingNeedsTheFuzzBuild() async throws {
        // `swift build` links no libFuzzer; `make fuzz` builds the same program with it.
        let output = try await Self.fuzz(["gzip", "-runs=1"])
        #expect(output.status == 2)
        #expect(output.text == "sluice-fuzz: this build has no libFuzzer; build and run the targets with `make fuzz`\n")
    }
}
