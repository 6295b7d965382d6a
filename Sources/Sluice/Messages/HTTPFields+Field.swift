extension HTTPFields {
    /// One header field: a name, in the case it was given, and its value.
    public struct Field: Sendable, Hashable, CustomStringConvertible {
        /// The field's name, as written (compared without case).
        public let name: String
        /// The field's value.
        public let value: String

        init(validName name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// A field checked as ``HTTPFields/append(name:value:)`` checks one: for a middleware that
        /// adds the same field to every request, checked once and set with `set(_:)`.
        package init(checking name: String, value: String) throws(SluiceError) {
            self = try HTTPFields.validatedField(name: name, value: value)
        }

        public static func == (lhs: Field, rhs: Field) -> Bool {
            HTTPFields.namesEqual(lhs.name, rhs.name) && lhs.value == rhs.value
        }

        public func hash(into hasher: inout Hasher) {
            for byte in name.utf8 { hasher.combine(HTTPFields.asciiLowercased(byte)) }
            hasher.combine(value)
        }

        public var description: String { "\(name): \(value)" }
    }
}
