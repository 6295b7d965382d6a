import Foundation
import SluiceTestSupport

/// `http-ece` and `jwcrypto` from PyPI, in the test servers' virtual environment, run for real:
/// a small Python program reads the message on standard input and writes the result.
enum ReferenceImplementations {
    static let program = #"""
        import base64, json, sys
        def b64(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
        command, key = sys.argv[1], b64(sys.argv[2])
        data = sys.stdin.buffer.read()
        if command == "ece-encrypt":
            import http_ece
            out = http_ece.encrypt(data, key=key, keyid=sys.argv[3], rs=int(sys.argv[4]), version="aes128gcm")
        elif command == "ece-decrypt":
            import http_ece
            out = http_ece.decrypt(data, key=key, version="aes128gcm")
        elif command == "jwe-encrypt":
            from jwcrypto import jwe, jwk
            header = {"alg": "dir", "enc": sys.argv[4], "kid": sys.argv[3], "cty": "application/json"}
            token = jwe.JWE(data, protected=json.dumps(header))
            token.add_recipient(jwk.JWK(kty="oct", k=sys.argv[2]))
            out = token.serialize(compact=True).encode()
        elif command == "jwe-decrypt":
            from jwcrypto import jwe, jwk
            token = jwe.JWE()
            token.deserialize(data.decode(), key=jwk.JWK(kty="oct", k=sys.argv[2]))
            header = token.jose_header
            out = json.dumps({"cty": header.get("cty"), "kid": header.get("kid"), "enc": header.get("enc")}).encode() + b"\n" + token.payload
        sys.stdout.buffer.write(out)
        """#

    /// Runs `command` with `arguments` over `input`; its standard output.
    static func run(_ command: String, _ arguments: [String], input: Data) async throws -> Data {
        let python = try InteropServers.value("SLUICE_PYTHON")
        let scratch = try TemporaryDirectory(prefix: "sluice-reference")
        let script = scratch.filePath("reference.py")
        try Data(program.utf8).write(to: URL(fileURLWithPath: script))
        let inputFile = scratch.filePath("input")
        try input.write(to: URL(fileURLWithPath: inputFile))
        defer { withExtendedLifetime(scratch) {} }
        return try await Blocking.run {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script, command] + arguments
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let failure = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw ReferenceFailure(description: "\(command) failed: \(String(decoding: failure, as: UTF8.self))")
            }
            return data
        }
    }

    struct ReferenceFailure: Error, CustomStringConvertible {
        let description: String
    }
}
