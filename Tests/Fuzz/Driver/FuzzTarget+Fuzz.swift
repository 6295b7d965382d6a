import Foundation

/// One fuzz target: a parser of Sluice's that reads untrusted bytes, and the properties that must
/// hold for whatever it is given. A broken property traps (``FuzzTarget/require(_:_:)``), which
/// libFuzzer reports as a crash and saves the input that caused it.
///
/// ```swift
/// FuzzTarget.named("cache-control")?.run(Data("max-age=60, private".utf8))
/// ```
struct FuzzTarget: Sendable {
    /// The name given on the command line and used for its corpus folder, `Tests/Fuzz/Corpus/<name>`.
    let name: String
    /// What the target feeds its input to.
    let summary: String
    /// Feeds one input; returns when every property held.
    let run: @Sendable (Data) -> Void

    /// Every target, in the order `make fuzz` runs them.
    static let all: [FuzzTarget] = [
        .cacheControl, .httpDate, .url, .httpFields, .gzip, .mockRequest, .har, .commandLine, .xml, .terminalText,
        .redisReply, .rateLimitFields, .serverSentEvents, .multipart, .aes128gcm, .jweCompact, .chunkedFraming,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// Traps, naming the broken property, when `condition` is false.
    static func require(_ condition: Bool, _ property: @autoclosure () -> String) {
        if !condition {
            FileHandle.standardError.write(Data("sluice-fuzz: property broken: \(property())\n".utf8))
            abort()
        }
    }

    /// The input as text (invalid UTF-8 repaired, as it would be by a `String(decoding:)` caller).
    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// The input cut at NUL bytes, for targets that take several strings.
    static func strings(_ data: Data) -> [String] {
        data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
}
