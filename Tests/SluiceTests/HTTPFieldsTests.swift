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
        #expect(message(name: "X-A\rB", value: "v")
            == #"header name "X-A\rB" has CR (0x0D) at byte 3; CR, LF and NUL are never allowed in header fields"#)
        #expect(message(name: "X-Token", value: "a\nEvil: 1")
            == #"value of header "X-Token" has LF (0x0A) at byte 1; CR, LF and NUL are never allowed in header fields"#)
        #expect(message(name: "X Y", value: "v")
            == #"header name "X Y" has ' ' (0x20) at byte 1, which is not a token character (RFC 9110 §5.6.2)"#)
        #expect(message(name: "X", value: "a\u{1}")
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

    // MARK: helpers

    private func expectRejected(
        name: String, value: String, part: HTTPFields.FieldError.Part, problem: HTTPFields.FieldError.Problem,
        offset: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for operation in ["append", "set"] {
            var fields = HTTPFields()
            do {
                if operation == "append" { try fields.append(name: name, value: value) }
                else { try fields.set(name: name, value: value) }
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
