#if HTTPTypes
    import HTTPTypes
    import Sluice

    extension HTTPTypes.HTTPFields {
        /// Sluice's fields in swift-http-types' type: the same names (their case kept) and values,
        /// in the same order, repeated names kept.
        ///
        /// ```swift
        /// import HTTPTypes
        /// import Sluice
        /// import SluiceHTTPTypes
        ///
        /// let fields = try HTTPTypes.HTTPFields(["Accept": "application/json", "X-Trace": "7"] as Sluice.HTTPFields)
        /// fields[.accept]   // "application/json"
        /// ```
        ///
        /// - Throws: `SluiceError` `.invalidHeader` for the field of a literal that Sluice left out
        ///   (`HTTPFields.invalidLiteral`), or a name or value HTTPTypes refuses, rather
        ///   than let HTTPTypes change a value (it turns bytes it refuses into spaces); for more
        ///   fields than HTTPTypes holds (65,534: its precondition would stop the process).
        public init(_ fields: Sluice.HTTPFields) throws(SluiceError) {
            try fields.validated()
            guard fields.count < Self.maximumCount else {
                throw SluiceError(
                    .invalidHeader, "\(fields.count) fields are more than swift-http-types' HTTPFields holds (at most \(Self.maximumCount - 1))")
            }
            self.init()
            reserveCapacity(fields.count)
            for field in fields {
                guard let name = HTTPField.Name(field.name) else {
                    throw SluiceError(.invalidHeader, "HTTPTypes refuses the field name \(String(reflecting: field.name).escapingControlCharacters())")
                }
                guard HTTPField.isValidValue(field.value) else {
                    throw SluiceError(
                        .invalidHeader, "HTTPTypes refuses the value of the field \(String(reflecting: field.name).escapingControlCharacters())")
                }
                append(HTTPField(name: name, value: field.value))
            }
        }

        /// One more than the fields swift-http-types' `HTTPFields` holds: it indexes them with
        /// `UInt16` and stops the process (a precondition) at `UInt16.max`.
        static let maximumCount = Int(UInt16.max)
    }

    extension Sluice.HTTPFields {
        /// swift-http-types' fields in Sluice's type: the same names (their case kept) and values,
        /// in the same order, repeated names kept, each checked as `HTTPFields.append(name:value:)`
        /// checks it.
        ///
        /// ```swift
        /// import HTTPTypes
        /// import Sluice
        /// import SluiceHTTPTypes
        ///
        /// let fields = try Sluice.HTTPFields([.accept: "application/json"] as HTTPTypes.HTTPFields)
        /// fields["accept"]   // "application/json"
        /// ```
        ///
        /// - Throws: `SluiceError` `.invalidHeader` for a value Sluice refuses (a control
        ///   character other than a tab).
        public init(_ fields: HTTPTypes.HTTPFields) throws(SluiceError) {
            try self.init(validating: fields.lazy.map { (name: $0.name.rawName, value: $0.value) })
        }
    }
#endif
