import CSQLite
import Foundation
import SluiceCache
import SluiceTestSupport
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The `sluice-cache-stress` helper, built beside the test binary.
func stressHelper() throws -> URL {
    try BuiltProducts.executable("sluice-cache-stress")
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
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root; aFullDatabaseIsATypedErrorAndTheRequestStillGoesOut injects SQLITE_FULL anywhere"))
    func aRealFullDiskFailsPutsSoftlyAndLosesNothingAcknowledged() async throws {
        let folder = try TemporaryDirectory(prefix: "sluice-diskfull")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        // A private mount namespace: the 512 KB tmpfs exists for the helper alone and is gone
        // when it exits.
        process.arguments = [
            "-m", "sh", "-c", #"mount -t tmpfs -o size=512k tmpfs "$1" && exec "$2" diskfull "$1/cache.sqlite""#,
            "sh", folder.path, try stressHelper().path,
        ]
        let (data, status) = try await Blocking.output(of: process, mergingErrors: true)
        let text = String(decoding: data, as: UTF8.self)
        // Every failed put was SQLITE_FULL (13), whether the row or a body file met the full disk;
        // every acknowledged entry reads back whole; the middleware still delivered the response.
        #expect(status == 0, "\(text)")
        #expect(text.hasSuffix(" lost 0 failed 20 codes 13 delivered true\n"), "\(text)")
        let acknowledged = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        #expect(acknowledged > 5, "the disk held some entries before it filled: \(text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "the tmpfs was private")
    }

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
        var outputs: [String] = []
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
            outputs.append(String(text.suffix(2_000)))
            if let calls = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { totalCalls += calls }
        }
        #expect(totalCalls > 1_000, "the processes did work: \(totalCalls) calls")
        let check = try await Blocking.run { integrity(path) }
        #expect(check == "ok", "integrity_check: \(check)\nthe processes said:\n\(outputs.joined(separator: "\n---\n"))")
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
            // The waiting, reading and integrity check (seconds, once the file is large) run on a
            // thread of their own: on a cooperative thread they would stall the tests beside this one.
            let (keys, check) = try await Blocking.run {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let keys = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .split(separator: "\n").map(String.init).filter { $0.hasPrefix("r\(round)-") }
                return (keys, integrity(path))
            }
            reported += keys.count

            #expect(check == "ok", "round \(round)")
            let store = try SQLiteCacheStore(path: path)
            for key in keys {
                let entry = try await store.get(key)
                #expect(entry?.headers["X-Key"] == key, "round \(round): \(key) was reported stored but reads \(String(describing: entry))")
            }
        }
        #expect(reported > 100, "the writer stored \(reported) entries over the rounds")
    }
}
