import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Redaction {
    /// The secret values one request carries, in every spelling a server that echoes them may use,
    /// so that text quoting the call (a log record, a response body) can hide them wherever they
    /// appear: httpbin's `/anything` sends a request's `Authorization`, its `?token=` and its
    /// JSON `password` back in its body.
    ///
    /// A value is hidden where it stands (its field, parameter or JSON key) by the rest of
    /// ``Redaction``; this catches its echoes. Values shorter than ``minimumLength`` are not
    /// looked for elsewhere: hiding every `7` in a log would hide the log, not the secret.
    package struct SecretValues: Sendable {
        /// The shortest value whose echoes are hidden.
        package static let minimumLength = 4

        /// The shortest value looked for: ``minimumLength`` unless made with another.
        package let minimumLength: Int

        /// Every spelling, longest first, so that a longer one is replaced before a part of it.
        package private(set) var spellings: [String] = []
        /// Each spelling's bytes, and which of them match in either case: the two hex digits of
        /// a percent escape and the four of a JSON `\u` escape, so an echo that writes `%2f` or
        /// `\u00E9` where the request had `%2F` or `\u00e9` is found too.
        private var patterns: [(bytes: [UInt8], caseFree: [Bool])] = []

        package init(minimumLength: Int = Self.minimumLength) {
            self.minimumLength = minimumLength
        }

        package var isEmpty: Bool { spellings.isEmpty }

        /// Adds `value`, with the spellings of it that a URL, a form or JSON would use.
        package mutating func add(_ value: String) {
            guard value.utf8.count >= minimumLength, value != Redaction.placeholder else { return }
            let encoded = PercentEncoding.encode(value, keeping: .queryItem)
            var new = [value, encoded, encoded.replacingOccurrences(of: "%20", with: "+")]
            let json = Self.jsonEscaped(value, asciiOnly: false)
            new.append(json)
            new.append(json.replacingOccurrences(of: "/", with: "\\/"))
            new.append(Self.jsonEscaped(value, asciiOnly: true))
            for spelling in new where !spellings.contains(spelling) { spellings.append(spelling) }
            spellings.sort { $0.utf8.count > $1.utf8.count }
            patterns = spellings.map { Self.pattern($0) }
        }

        /// `text` with every spelling of every value replaced by ``Redaction/placeholder``. Text
        /// that holds none (nearly all) comes back as it is after one byte search per spelling.
        package func masking(_ text: String) -> String {
            var text = text
            let found = text.withUTF8 { haystack in patterns.contains { Self.find($0, in: UnsafeRawBufferPointer(haystack), from: 0) != nil } }
            guard found else { return text }
            let bytes = Array(text.utf8)
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            let placeholder = Array(Redaction.placeholder.utf8)
            bytes.withUnsafeBytes { haystack in
                var index = 0
                while index < bytes.count {
                    // The longest spelling that starts here wins.
                    if let pattern = patterns.first(where: { Self.matches($0, in: haystack, at: index) }) {
                        output += placeholder
                        index += pattern.bytes.count
                    } else {
                        output.append(bytes[index])
                        index += 1
                    }
                }
            }
            return String(decoding: output, as: UTF8.self)
        }

        /// Whether some spelling of some value is in `data`: a body a cache would keep on disk.
        package func occurs(in data: Data) -> Bool {
            !patterns.isEmpty
                && data.withUnsafeBytes { bytes in patterns.contains { Self.find($0, in: bytes, from: 0) != nil } }
        }

        /// Whether some spelling of some value is in a field's value.
        package func occurs(in fields: HTTPFields) -> Bool {
            !patterns.isEmpty
                && fields.contains { field in
                    var value = field.value
                    return value.withUTF8 { haystack in patterns.contains { Self.find($0, in: UnsafeRawBufferPointer(haystack), from: 0) != nil } }
                }
        }

        /// `spelling`'s bytes, the hex digits of its escapes marked to match in either case.
        static func pattern(_ spelling: String) -> (bytes: [UInt8], caseFree: [Bool]) {
            let bytes = Array(spelling.utf8)
            var caseFree = Array(repeating: false, count: bytes.count)
            func isHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) }
            var index = 0
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                    caseFree[index + 1] = true
                    caseFree[index + 2] = true
                    index += 3
                } else if bytes[index] == UInt8(ascii: "\\"), index + 5 < bytes.count, bytes[index + 1] == UInt8(ascii: "u"),
                    (2...5).allSatisfy({ isHex(bytes[index + $0]) })
                {
                    for offset in 2...5 { caseFree[index + offset] = true }
                    index += 6
                } else {
                    index += 1
                }
            }
            return (bytes, caseFree)
        }

        /// Whether `pattern` stands in `haystack` at `offset`.
        private static func matches(_ pattern: (bytes: [UInt8], caseFree: [Bool]), in haystack: UnsafeRawBufferPointer, at offset: Int) -> Bool {
            guard offset + pattern.bytes.count <= haystack.count else { return false }
            for (index, wanted) in pattern.bytes.enumerated() {
                let byte = haystack[offset + index]
                if byte == wanted { continue }
                // A hex letter of an escape, in the other case.
                guard pattern.caseFree[index], byte | 0x20 == wanted | 0x20, (0x61...0x66).contains(byte | 0x20) else { return false }
            }
            return true
        }

        /// Where `pattern` first stands in `haystack` from `start`: memchr for each candidate
        /// start (a spelling never begins with a case-free byte), then a byte comparison.
        private static func find(_ pattern: (bytes: [UInt8], caseFree: [Bool]), in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
            guard let base = haystack.baseAddress, let first = pattern.bytes.first, pattern.bytes.count <= haystack.count else { return nil }
            var offset = start
            let last = haystack.count - pattern.bytes.count
            while offset <= last, let found = memchr(base + offset, Int32(first), last - offset + 1) {
                let candidate = UnsafeRawPointer(found) - base
                if matches(pattern, in: haystack, at: candidate) { return candidate }
                offset = candidate + 1
            }
            return nil
        }

        /// `value` as the inside of a JSON string: quotes, backslashes and controls escaped; with
        /// `asciiOnly`, everything past ASCII as `\uXXXX` too (Python's `json.dumps` by default).
        static func jsonEscaped(_ value: String, asciiOnly: Bool) -> String {
            var result = ""
            func hex(_ unit: UInt16) {
                let digits = String(unit, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            }
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                default:
                    if scalar.value < 0x20 || (asciiOnly && scalar.value > 0x7E) {
                        for unit in String(scalar).utf16 { hex(unit) }
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result
        }
    }

    /// ``snippet(of:contentType:)`` for an error about `response`, with every secret value the
    /// request carried hidden wherever the body echoes it (a server that answers a refused call
    /// with the request it got, token and all).
    package func snippet(of body: Data, in response: HTTPResponse) -> String {
        // The request's own policy too: a decoder made with the default hides what the request's
        // policy names as well.
        let policy = response.request.map { adding($0.privacyPolicy) } ?? self
        let text = policy.snippet(of: body, contentType: response.headers["Content-Type"])
        guard let request = response.request else { return text }
        let secrets = policy.secretValues(of: request, body: true)
        return secrets.isEmpty ? text : secrets.masking(text)
    }

    /// The secret values `request` carries: the values of hidden header fields (and a scheme's
    /// credentials after it: `Bearer T` gives `T`; `Basic` also its decoded `user:password` and
    /// the password; `Cookie` each cookie's value), of hidden query parameters (as sent and
    /// decoded) and, with `body`, of hidden form and JSON fields of an in-memory body.
    ///
    /// `minimumLength`: the shortest value kept (a cache that refuses to store an echo looks
    /// for longer values than a log that masks them: `true` in a cookie must not keep every JSON
    /// body out of the cache).
    package func secretValues(of request: HTTPRequest, body: Bool, minimumLength: Int = SecretValues.minimumLength) -> SecretValues {
        var secrets = SecretValues(minimumLength: minimumLength)
        guard isEnabled else { return secrets }
        for field in request.headers where hidesHeader(field.name) {
            addHeaderValue(field.name, field.value, to: &secrets)
        }
        if let query = request.url.query(percentEncoded: true), hidesAnyParameter(in: request.url) {
            addFormValues(query[...], hidden: hidesQueryParameter, to: &secrets)
        }
        if body, case .bytes(let data) = request.body, !data.isEmpty {
            addBodyValues(data, contentType: request.headers["Content-Type"], to: &secrets)
        }
        return secrets
    }

    private func addHeaderValue(_ name: String, _ value: String, to secrets: inout SecretValues) {
        secrets.add(value)
        let lowered = name.lowercased()
        if lowered == "cookie" || lowered == "set-cookie" {
            // Each cookie's value; a Set-Cookie's attributes after its first pair are not secret.
            let pairs = value.split(separator: ";")
            for pair in lowered == "cookie" ? pairs[...] : pairs.prefix(1) {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                secrets.add(String(pair[pair.index(after: equals)...]))
            }
            return
        }
        guard let space = value.firstIndex(of: " ") else { return }
        let credentials = value[value.index(after: space)...].trimmingOptionalWhitespace()
        secrets.add(credentials)
        if value[..<space].lowercased() == "basic", let decoded = Data(base64Encoded: credentials),
            let text = String(data: decoded, encoding: .utf8)
        {
            secrets.add(text)
            if let colon = text.firstIndex(of: ":") { secrets.add(String(text[text.index(after: colon)...])) }
        }
    }

    /// The values of hidden `name=value` pairs, as written and decoded.
    private func addFormValues(_ form: Substring, hidden: (String) -> Bool, to secrets: inout SecretValues) {
        for pair in form.split(separator: "&") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = PercentEncoding.decode(pair[..<equals], plusIsSpace: true) ?? String(pair[..<equals])
            guard hidden(name) else { continue }
            let value = pair[pair.index(after: equals)...]
            secrets.add(String(value))
            if let decoded = PercentEncoding.decode(value, plusIsSpace: true) { secrets.add(decoded) }
        }
    }

    /// The values of hidden fields of a form or JSON body.
    private func addBodyValues(_ data: Data, contentType: String?, to secrets: inout SecretValues) {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            if let text = String(data: data, encoding: .utf8) { addFormValues(text[...], hidden: hidesParameter, to: &secrets) }
        } else if type.contains("json") || type.isEmpty, data.count <= 1 << 22,
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        {
            addJSONValues(object, to: &secrets, depth: 0)
        }
    }

    private func addJSONValues(_ value: Any, to secrets: inout SecretValues, depth: Int) {
        guard depth < 64 else { return }
        if let object = value as? [String: Any] {
            for (key, inner) in object {
                if hidesKey(key) {
                    Self.addScalars(inner, to: &secrets, depth: depth + 1)
                } else {
                    addJSONValues(inner, to: &secrets, depth: depth + 1)
                }
            }
        } else if let array = value as? [Any] {
            for inner in array { addJSONValues(inner, to: &secrets, depth: depth + 1) }
        }
    }

    /// Every string and number under a hidden key.
    private static func addScalars(_ value: Any, to secrets: inout SecretValues, depth: Int) {
        guard depth < 64 else { return }
        switch value {
        case let text as String: secrets.add(text)
        case let number as NSNumber: secrets.add(number.stringValue)
        case let object as [String: Any]: for inner in object.values { addScalars(inner, to: &secrets, depth: depth + 1) }
        case let array as [Any]: for inner in array { addScalars(inner, to: &secrets, depth: depth + 1) }
        default: break
        }
    }
}
