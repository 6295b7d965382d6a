import CSQLite
import Foundation
import SluiceCache
import SluiceTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `sluice-cache-stress` helper, built beside the test binary.
func stressHelper() throws -> URL {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL,
        Bundle.main.bundleURL.deletingLastPathComponent(),
    ].map { $0.appendingPathComponent("sluice-cache-stress") }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw MissingHelper(looked: candidates.map(\.path))
    }
    return found
}

struct MissingHelper: Error, CustomStringConvertible {
    let looked: [String]
    var description: String { "sluice-cache-stress is not built; looked at \(looked)" }
}

/// `PRAGMA integrity_check` of the database at `path`.
func integrity(_ path: String) -> String {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return "cannot open" }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else { return "cannot prepare" }
    defer { sqlite3_finalize(statement) }
    var lines: [String] = []
    while sqlite3_step(statement) == SQLITE_ROW { lines.append(String(cString: sqlite3_column_text(statement, 0))) }
    return lines.joined(separator: "; ")
}

@Suite("SQLiteCacheStore across processes")
struct CacheProcessTests {
    @Test func fourProcessesHammerOneFileForThirtySeconds() async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-cache")
        let path = folder.filePath("shared.sqlite")
        let helper = try stressHelper()
        var processes: [(Process, Pipe)] = []
        for seed in 1...4 {
            let process = Process()
            let output = Pipe()
            process.executableURL = helper
            process.arguments = ["hammer", path, "30", String(seed)]
            process.standardOutput = output
            process.standardError = output
            try process.run()
            processes.append((process, output))
        }
        var totalCalls = 0
        for (process, output) in processes {
            // Waited for on a thread of its own: thirty seconds on one of the two cooperative
            // threads would stall every other test in the run.
            let (text, status) = try await Blocking.run {
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (text, process.terminationStatus)
            }
            #expect(status == 0, "\(text)")
            #expect(text.contains("errors 0"), "\(text)")
            if let calls = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { totalCalls += calls }
        }
        #expect(totalCalls > 1_000, "the processes did work: \(totalCalls) calls")
        #expect(integrity(path) == "ok")
    }

    @Test func aWriterKilledAHundredTimesLosesNothingItReported() async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-cache")
        let path = folder.filePath("killed.sqlite")
        let helper = try stressHelper()
        var reported = 0
        for round in 0..<100 {
            let process = Process()
            let output = Pipe()
            process.executableURL = helper
            process.arguments = ["writer", path, "r\(round)-"]
            process.standardOutput = output
            try process.run()
            // Let it write for a while (the first round also creates the database), then SIGKILL.
            try await Task.sleep(for: .milliseconds(round == 0 ? 400 : 40 + (round * 37) % 120))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let keys = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").map(String.init).filter { $0.hasPrefix("r\(round)-") }
            reported += keys.count

            #expect(integrity(path) == "ok", "round \(round)")
            let store = try SQLiteCacheStore(path: path)
            for key in keys {
                let entry = try await store.get(key)
                #expect(entry?.headers["X-Key"] == key, "round \(round): \(key) was reported stored but reads \(String(describing: entry))")
            }
        }
        #expect(reported > 100, "the writer stored \(reported) entries over the rounds")
    }
}
