import Sluice
import Testing

@Suite("HTTPFields")
struct HTTPFieldsTests {
    @Test func keepsOrderCaseAndRepeats() throws {
        var fields = HTTPFields()
        try fields.append(name: "Accept", value: "text/html")
        try fields.append(name: "X-Trace", value: "1")
        try fields.append(name: "accept", value: "application/json")
        #expect(fields.map(\.name) == ["Accept", "X-Trace", "accept"])
        #expect(fields["ACCEPT"] == "text/html, application/json")
        #expect(fields.values(for: "aCcEpT") == ["text/html", "application/json"])
        #expect(fields["Missing"] == nil)
        #expect(fields.values(for: "Missing").isEmpty)
        #expect(fields.contains("x-trace"))
    }

    /// What a signer changed: the fast path (fields only added after the kept ones) and the
    /// general one (a value changed in place, a field removed, raw fields) give the same names.
    @Test func changedNamesAreTheAddedChangedAndRepeatedOnes() throws {
        let sent: HTTPFields = ["Accept": "*/*", "X-Trace": "1"]
        var added = sent
        try added.append(name: "X-Signature", value: "abc")
        try added.append(name: "accept", value: "text/html")  // a second value for a kept name
        #expect(added.changedNames(from: sent) == ["x-signature", "accept"])
        #expect(sent.changedNames(from: sent).isEmpty)

        var changed = sent
        try changed.set(name: "X-Trace", value: "2")
        #expect(changed.changedNames(from: sent) == ["x-trace"])
        var renamed = HTTPFields()
        try renamed.append(name: "accept", value: "*/*")  // another case, the same value: no change
        try renamed.append(name: "X-Trace", value: "1")
        #expect(renamed.changedNames(from: sent).isEmpty)
        var removed = sent
        removed.remove(name: "Accept")
        #expect(removed.changedNames(from: sent).isEmpty)  // only what is there now counts

        let raw = try HTTPFields(parsing: Array("Accept: */*\r\nX-Trace: 1\r\nAuthorization: k\r\n".utf8))
        #expect(raw.changedNames(from: sent) == ["authorization"])
    }

    @Test func dictionaryLiteralKeepsOrder() {
        let fields: HTTPFields = ["B": "2", "A": "1", "C": "3"]
        #expect(fields.map(\.name) == ["B", "A", "C"])
        #expect(fields["a"] == "1")
    }

    @Test func setReplacesFirstInPlaceAndDropsTheRest() throws {
        var fields: HTTPFields = ["A": "1", "Cookie": "x=1", "B": "2"]
        try fields.append(name: "cookie", value: "y=2")
        try fields.set(name: "COOKIE", value: "z=3")
        #expect(fields.map(\.description) == ["A: 1", "COOKIE: z=3", "B: 2"])
        try fields.set(name: "New", value: "v")
        #expect(fields.last?.description == "New: v")
    }

    @Test func removeDropsEveryMatchAndCounts() throws {
        var fields: HTTPFields = ["A": "1", "b": "2"]
        try fields.append(name: "B", value: "3")
        #expect(fields.remove(name: "b") == 2)
        #expect(fields.remove(name: "b") == 0)
        #expect(fields.map(\.name) == ["A"])
    }

    @Test func valuesAreTrimmedButInnerSpaceKept() throws {
        var fields = HTTPFields()
        try fields.append(name: "X", value: " \t a  b \t ")
        try fields.append(name: "Y", value: "   ")
        #expect(fields["X"] == "a  b")
        #expect(fields["Y"] == "")
    }

    @Test func tabAndNonASCIIAreAllowedInValues() throws {
        var fields = HTTPFields()
        try fields.append(name: "X", value: "a\tb")
        try fields.append(name: "Y", value: "café")
        #expect(fields["X"] == "a\tb")
        #expect(fields["Y"] == "café")
    }

    @Test func equalityIgnoresNameCaseButNotOrder() {
        let a: HTTPFields = ["Accept": "1", "B": "2"]
        let b: HTTPFields = ["accept": "1", "b": "2"]
        let c: HTTPFields = ["B": "2", "Accept": "1"]
        #expect(a == b)
        #expect(a != c)
    }

    /// Every character refused in a name or value, with the exact error each gets.
    @Test(arguments: [
        ("X-A\rB", HTTPFields.FieldError.Problem.forbiddenCharacter(0x0D), 3),
        ("X-A\nB", .forbiddenCharacter(0x0A), 3),
        ("X-A\u{0}B", .forbiddenCharacter(0x00), 3),
    ])
    func forbiddenCharacterInName(name: String, problem: HTTPFields.FieldError.Problem, offset: Int) {
        expectRejected(name: name, value: "v", part: .name, problem: problem, offset: offset)
    }

    @Test(arguments: [
        ("a\rb", HTTPFields.FieldError.Problem.forbiddenCharacter(0x0D), 1),
        ("a\nEvil: 1", .forbiddenCharacter(0x0A), 1),
        ("ab\u{0}", .forbiddenCharacter(0x00), 2),
        ("a\u{1}b", .controlCharacter(0x01), 1),
        ("a\u{1F}b", .controlCharacter(0x1F), 1),
        ("a\u{7F}b", .controlCharacter(0x7F), 1),
    ])
    func refusedCharacterInValue(value: String, problem: HTTPFields.FieldError.Problem, offset: Int) {
        expectRejected(name: "X-Token", value: value, part: .value, problem: problem, offset: offset)
    }

    /// Every non-token ASCII character (RFC 9110 §5.6.2 delimiters, space, tab, DEL) and non-ASCII.
    @Test(arguments: Array("\"(),/:;<=>?@[\\]{} \t\u{7F}é".unicodeScalars))
    func nonTokenCharacterInName(scalar: Unicode.Scalar) {
        let name = "X\(Character(scalar))Y"
        let byte = Array(String(scalar).utf8)[0]
        expectRejected(name: name, value: "v", part: .name, problem: .notTokenCharacter(byte), offset: 1)
    }

    @Test func emptyNameIsRefused() {
        expectRejected(name: "", value: "v", part: .name, problem: .emptyName, offset: 0)
    }

    @Test func exactMessages() {
        #expect(
            message(name: "X-A\rB", value: "v")
                == #"header name "X-A\rB" has CR (0x0D) at byte 3; CR, LF and NUL are never allowed in header fields"#)
        #expect(
            message(name: "X-Token", value: "a\nEvil: 1")
                == #"value of header "X-Token" has LF (0x0A) at byte 1; CR, LF and NUL are never allowed in header fields"#)
        #expect(
            message(name: "X Y", value: "v")
                == #"header name "X Y" has ' ' (0x20) at byte 1, which is not a token character (RFC 9110 §5.6.2)"#)
        #expect(
            message(name: "X", value: "a\u{1}")
                == #"value of header "X" has control character byte 0x01 at byte 1; only horizontal tab is allowed"#)
        #expect(message(name: "", value: "v") == "header name is empty")
    }

    @Test func failedSetLeavesFieldsUnchanged() throws {
        var fields: HTTPFields = ["A": "1", "A-2": "2"]
        #expect(throws: SluiceError.self) { try fields.set(name: "A", value: "bad\r\n") }
        #expect(fields == ["A": "1", "A-2": "2"])
    }

    @Test func validatingInitializerStopsAtFirstBadPair() {
        #expect(throws: SluiceError.self) {
            _ = try HTTPFields(validating: [(name: "Good", value: "1"), (name: "Bad Name", value: "2")])
        }
        #expect((try? HTTPFields(validating: [(name: "Good", value: "1")]))?["good"] == "1")
    }

    // MARK: Raw fields, as a transport appends them

    private func raw(_ pairs: [(String, String)]) throws -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            try Array(name.utf8).withUnsafeBytes { nameBytes in
                try Array(value.utf8).withUnsafeBytes { valueBytes in
                    try fields.append(nameBytes: nameBytes, valueBytes: valueBytes)
                }
            }
        }
        return fields
    }

    @Test func rawFieldsReadLikeStringFields() throws {
        let fromBytes = try raw([("Content-Type", " text/html "), ("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("X-Empty", "")])
        var fromStrings = HTTPFields()
        for (name, value) in [("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("X-Empty", "")] {
            try fromStrings.append(name: name, value: value)
        }
        #expect(fromBytes == fromStrings)
        #expect(fromBytes.hashValue == fromStrings.hashValue)
        #expect(fromBytes.count == 4)
        #expect(fromBytes.map(\.name) == ["Content-Type", "Set-Cookie", "set-cookie", "X-Empty"])
        #expect(fromBytes["content-type"] == "text/html")
        #expect(fromBytes.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(fromBytes["X-Empty"] == "")
        #expect(fromBytes.contains("x-empty") && !fromBytes.contains("x-missing"))
        #expect(fromBytes.description == "Content-Type: text/html\nSet-Cookie: a=1\nset-cookie: b=2\nX-Empty: ")
    }

    @Test func changingRawFieldsKeepsCopiesApart() throws {
        let original = try raw([("A", "1"), ("B", "2")])
        var changed = original
        try changed.set(name: "a", value: "9")
        try changed.append(name: "C", value: "3")
        var appended = original
        try Array("D".utf8).withUnsafeBytes { name in
            try Array("4".utf8).withUnsafeBytes { try appended.append(nameBytes: name, valueBytes: $0) }
        }
        #expect(original.map(\.description) == ["A: 1", "B: 2"])
        #expect(changed.map(\.description) == ["a: 9", "B: 2", "C: 3"])
        #expect(appended.map(\.description) == ["A: 1", "B: 2", "D: 4"])
        #expect(changed.remove(name: "b") == 1)
    }

    @Test func rawFieldsAreValidatedWithTheSameErrors() {
        for (name, value, expected) in [
            ("Bad Name", "v", HTTPFields.FieldError(name: "Bad Name", part: .name, problem: .notTokenCharacter(0x20), byteOffset: 3)),
            ("X", "a\rb", HTTPFields.FieldError(name: "X", part: .value, problem: .forbiddenCharacter(0x0D), byteOffset: 1)),
            ("", "v", HTTPFields.FieldError(name: "", part: .name, problem: .emptyName, byteOffset: 0)),
        ] {
            #expect {
                _ = try raw([(name, value)])
            } throws: { error in
                (error as? SluiceError)?.underlying as? HTTPFields.FieldError == expected
                    && (error as? SluiceError)?.code == .invalidHeader
            }
        }
    }

    // MARK: A parsed field section, as a transport receives it

    private func parsed(_ section: String) throws(SluiceError) -> HTTPFields {
        try HTTPFields(parsing: Array(section.utf8))
    }

    private func parseError(_ section: String) -> HTTPFields.FieldError? {
        do {
            _ = try parsed(section)
            return nil
        } catch {
            #expect(error.code == .invalidHeader)
            #expect(error.message == (error.underlying as? HTTPFields.FieldError)?.description)
            return error.underlying as? HTTPFields.FieldError
        }
    }

    @Test func aParsedSectionReadsLikeAppendedFields() throws {
        let fields = try parsed("Content-Type:  text/html \t\r\nSet-Cookie: a=1\nset-cookie:b=2\r\nX-Empty:\r\n\r\nIgnored: after the empty line\r\n")
        var expected = HTTPFields()
        for (name, value) in [("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("X-Empty", "")] {
            try expected.append(name: name, value: value)
        }
        #expect(fields == expected)
        #expect(fields.map(\.name) == ["Content-Type", "Set-Cookie", "set-cookie", "X-Empty"])
        #expect(fields.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(try parsed("").isEmpty)
        #expect(try parsed("\r\n").isEmpty)
        #expect(try parsed("A: no line end")["a"] == "no line end")
    }

    @Test func longValuesAreCheckedEveryByte() throws {
        // Values longer than a machine word go through the eight-bytes-at-a-time check first.
        let long = String(repeating: "abcdefgh", count: 5)
        #expect(try parsed("X: \(long)\tmore\u{80}\u{FF}\r\n")["x"] == "\(long)\tmore\u{80}\u{FF}")
        for (byte, problem) in [
            (UInt8(0x7F), HTTPFields.FieldError.Problem.controlCharacter(0x7F)),
            (0x01, .controlCharacter(0x01)), (0x00, .forbiddenCharacter(0x00)), (0x0D, .forbiddenCharacter(0x0D)),
        ] {
            for offset in [0, 7, 8, 17, 39] {
                var value = Array(long.utf8)
                value[offset] = byte
                // The offset counts from just after the colon, as the value was given.
                #expect(
                    parseError("X-Long: " + String(decoding: value, as: UTF8.self) + "\r\n")
                        == HTTPFields.FieldError(name: "X-Long", part: .value, problem: problem, byteOffset: offset + 1))
            }
        }
    }

    @Test func aBadLineInASectionGivesItsExactError() {
        #expect(
            parseError("A: 1\r\nno colon here\r\n")
                == HTTPFields.FieldError(name: "no colon here", part: .name, problem: .missingColon, byteOffset: 0))
        #expect(parseError("A: 1\r\nno colon here\r\n")?.description == #"header line "no colon here" has no colon"#)
        #expect(
            parseError("A: 1\r\nBad Name: 2\r\n")
                == HTTPFields.FieldError(name: "Bad Name", part: .name, problem: .notTokenCharacter(0x20), byteOffset: 3))
        #expect(parseError(": v\r\n") == HTTPFields.FieldError(name: "", part: .name, problem: .emptyName, byteOffset: 0))
        #expect(parseError("X: a\rb\r\n") == HTTPFields.FieldError(name: "X", part: .value, problem: .forbiddenCharacter(0x0D), byteOffset: 2))
        #expect(
            parseError(" folded: first\r\nA: 1\r\n")
                == HTTPFields.FieldError(name: " folded: first", part: .name, problem: .continuationWithoutField, byteOffset: 0))
        #expect(parseError(" folded\r\n")?.description == #"folded continuation line " folded" comes before any header field"#)
    }

    @Test func parsingAgreesWithAppendingLineByLine() {
        // Random sections over an alphabet rich in edge cases, parsed two ways: the one-pass parser,
        // and lines split here and appended with append(name:value:). Same fields or same error.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        let nameBytes = Array("aZ09-_.!~xyzXYZ".utf8), valueBytes = Array("aZ09 -_.!~;\"(@xyz:/,=".utf8)
        let oddBytes = Array(" ;\"(@\t\r\u{7F}\u{1}\u{0}".utf8)
        func pick(_ bytes: [UInt8]) -> UInt8 { next() % 25 == 0 ? oddBytes[Int(next() % UInt64(oddBytes.count))] : bytes[Int(next() % UInt64(bytes.count))] }
        var parsedFields = 0, failures = 0
        for _ in 0..<3000 {
            var lines: [[UInt8]] = []
            for _ in 0..<(1 + Int(next() % 4)) {
                var line: [UInt8] = [UInt8(ascii: "A") + UInt8(next() % 26)]  // never a folded line
                for _ in 0..<Int(next() % 8) { line.append(pick(nameBytes)) }
                if next() % 20 != 0 { line.append(UInt8(ascii: ":")) }
                for _ in 0..<Int(next() % 24) { line.append(pick(valueBytes)) }
                lines.append(line)
            }
            lines = lines.map { $0 + Array(next() % 2 == 0 ? "\r\n".utf8 : "\n".utf8) }
            let section = lines.joined()
            let parsed = Result { () throws(SluiceError) in try HTTPFields(parsing: Array(section)) }
            var expected = HTTPFields()
            var expectedError: HTTPFields.FieldError?
            for var line in lines {
                line.removeLast()  // LF
                if line.last == 0x0D { line.removeLast() }  // and one CR before it
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                    expectedError = HTTPFields.FieldError(name: String(decoding: line, as: UTF8.self), part: .name, problem: .missingColon, byteOffset: 0)
                    break
                }
                do {
                    try expected.append(name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: line[(colon + 1)...], as: UTF8.self))
                } catch {
                    expectedError = error.underlying as? HTTPFields.FieldError
                    break
                }
            }
            switch parsed {
            case .success(let fields):
                #expect(expectedError == nil && fields == expected, "\(String(decoding: section, as: UTF8.self).debugDescription)")
                parsedFields += fields.count
            case .failure(let error):
                #expect(error.underlying as? HTTPFields.FieldError == expectedError, "\(String(decoding: section, as: UTF8.self).debugDescription)")
                failures += 1
            }
        }
        // Both outcomes were exercised, many times.
        #expect(parsedFields > 500 && failures > 500, "\(parsedFields) fields, \(failures) failures")
    }

    @Test func foldedLinesAreJoinedWithOneSpace() throws {
        let fields = try parsed("X-Folded: first \r\n\t second\r\n  third\r\nX-After: 1\r\n")
        #expect(fields.map(\.description) == ["X-Folded: first second third", "X-After: 1"])
        #expect(parseError("X: 1\r\n \u{1}\r\n") == HTTPFields.FieldError(name: "X", part: .value, problem: .controlCharacter(1), byteOffset: 3))
    }

    // MARK: helpers

    private func expectRejected(
        name: String, value: String, part: HTTPFields.FieldError.Part, problem: HTTPFields.FieldError.Problem,
        offset: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for operation in ["append", "set"] {
            var fields = HTTPFields()
            do {
                if operation == "append" { try fields.append(name: name, value: value) } else { try fields.set(name: name, value: value) }
                Issue.record("\(operation) accepted \(String(reflecting: name)): \(String(reflecting: value))", sourceLocation: sourceLocation)
            } catch {
                #expect(error.code == .invalidHeader, sourceLocation: sourceLocation)
                let expected = HTTPFields.FieldError(name: name, part: part, problem: problem, byteOffset: offset)
                #expect(error.underlying as? HTTPFields.FieldError == expected, sourceLocation: sourceLocation)
                #expect(error.message == expected.description, sourceLocation: sourceLocation)
            }
            #expect(fields.isEmpty, sourceLocation: sourceLocation)
        }
    }

    private func message(name: String, value: String) -> String? {
        var fields = HTTPFields()
        do { try fields.append(name: name, value: value) } catch { return error.message }
        return nil
    }
}
