extension HTTPFields {
    /// Why a header name or value was refused. It is the ``SluiceError/underlying`` of the
    /// `.invalidHeader` error, so a test or a caller can match it exactly.
    public struct FieldError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Which part of a field is wrong.
        public enum Part: Hashable, Sendable {
            /// The field's name.
            case name
            /// The field's value.
            case value
        }

        /// What is wrong with the part.
        public enum Problem: Hashable, Sendable {
            /// The name is the empty string.
            case emptyName
            /// CR, LF or NUL, in a name or a value (RFC 9110 §5.5: never allowed).
            case forbiddenCharacter(UInt8)
            /// A byte in a name that is not an RFC 9110 `tchar`.
            case notTokenCharacter(UInt8)
            /// A control character other than horizontal tab in a value.
            case controlCharacter(UInt8)
            /// A line of a parsed field section (``HTTPFields/init(parsing:)``) without a colon;
            /// `name` holds the whole line.
            case missingColon
            /// A parsed field section starts with a folded continuation line (RFC 9112 §5.2):
            /// there is no field before it to continue.
            case continuationWithoutField
        }

        /// The field name as given (possibly the bad one).
        public let name: String
        /// The part that is wrong.
        public let part: Part
        /// What is wrong with it.
        public let problem: Problem
        /// The byte offset of the bad character within the name or the value as given.
        public let byteOffset: Int

        /// An error about `part` of the field `name`, at `byteOffset`.
        public init(name: String, part: Part, problem: Problem, byteOffset: Int) {
            self.name = name
            self.part = part
            self.problem = problem
            self.byteOffset = byteOffset
        }

        public var description: String {
            let subject = part == .name ? "header name \(quoted(name))" : "value of header \(quoted(name))"
            switch problem {
            case .emptyName:
                return "header name is empty"
            case .forbiddenCharacter(let byte):
                return "\(subject) has \(Self.describe(byte)) at byte \(byteOffset); CR, LF and NUL are never allowed in header fields"
            case .notTokenCharacter(let byte):
                return "\(subject) has \(Self.describe(byte)) at byte \(byteOffset), which is not a token character (RFC 9110 §5.6.2)"
            case .controlCharacter(let byte):
                return "\(subject) has control character \(Self.describe(byte)) at byte \(byteOffset); only horizontal tab is allowed"
            case .missingColon:
                return "header line \(quoted(name)) has no colon"
            case .continuationWithoutField:
                return "folded continuation line \(quoted(name)) comes before any header field"
            }
        }

        static func describe(_ byte: UInt8) -> String {
            let hex = "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            switch byte {
            case 0x0D: return "CR (\(hex))"
            case 0x0A: return "LF (\(hex))"
            case 0x00: return "NUL (\(hex))"
            case 0x20...0x7E: return "'\(Character(Unicode.Scalar(byte)))' (\(hex))"
            default: return "byte \(hex)"
            }
        }

        private func quoted(_ s: String) -> String { String(reflecting: s) }
    }
}
