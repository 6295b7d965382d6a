// sluice-fuzz: Sluice's fuzz targets, in one program.
//
//   sluice-fuzz list                          the targets, one a line
//   sluice-fuzz replay TARGET PATH...         runs every file under PATH once (any build);
//                                             `make test` replays the seed corpora this way
//   sluice-fuzz TARGET [libFuzzer flags and corpus folders]
//                                             fuzzes TARGET (builds made by `make fuzz` only)
import CSluiceFuzzDriver
import Foundation

/// The target libFuzzer calls. Set once in `main`, before libFuzzer starts, and only read after:
/// libFuzzer calls the target on the thread that called it, one input at a time (its -jobs and
/// -workers options fork whole processes), so there is never a concurrent access.
nonisolated(unsafe) var selectedTarget: FuzzTarget?

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("sluice-fuzz: \(message)\n".utf8))
    exit(status)
}

func inputs(under path: String) -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { fail("no such file or folder: \(path)") }
    guard isFolder.boolValue else { return [path] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.sorted().filter { !$0.hasPrefix(".") }.flatMap { inputs(under: path + "/" + $0) }
}

func replay(_ target: FuzzTarget, _ paths: [String]) {
    let files = paths.flatMap(inputs(under:))
    guard !files.isEmpty else { fail("no inputs under \(paths.joined(separator: " "))") }
    var bytes = 0
    var slowest = (seconds: 0.0, file: "")
    for file in files {
        guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
        let start = ContinuousClock.now
        target.run(data)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if seconds > slowest.seconds { slowest = (seconds, file) }
        bytes += data.count
    }
    print(
        "\(target.name): \(files.count) inputs, \(bytes) bytes, every property held; slowest \(Int(slowest.seconds * 1_000)) ms (\((slowest.file as NSString).lastPathComponent))"
    )
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    fail("usage: sluice-fuzz list | replay TARGET PATH... | TARGET [libFuzzer options] [CORPUS...]")
}
switch arguments[1] {
case "list":
    for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
case "replay":
    guard arguments.count >= 4 else { fail("usage: sluice-fuzz replay TARGET PATH...") }
    guard let target = FuzzTarget.named(arguments[2]) else { fail("no target \(arguments[2]); see sluice-fuzz list") }
    replay(target, Array(arguments[3...]))
default:
    guard let target = FuzzTarget.named(arguments[1]) else { fail("no target \(arguments[1]); see sluice-fuzz list") }
    selectedTarget = target
    // libFuzzer reads argv[0] and its own flags; the target name is ours, so it is left out.
    var cArguments: [UnsafeMutablePointer<CChar>?] = ([arguments[0]] + arguments[2...]).map { strdup($0) } + [nil]
    var count = Int32(cArguments.count - 1)
    let status = cArguments.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var argv = buffer.baseAddress
        return sluice_fuzz_driver(&count, &argv) { data, size in
            let input = size == 0 ? Data() : Data(bytes: data!, count: size)
            selectedTarget!.run(input)
            return 0
        }
    }
    if status == -1 { fail("this build has no libFuzzer; build and run the targets with `make fuzz`") }
    exit(status)
}
