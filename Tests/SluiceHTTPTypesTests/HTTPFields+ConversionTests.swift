#if HTTPTypes
    import HTTPTypes
    import Sluice
    import SluiceHTTPTypes
    import Testing

    @Suite struct HTTPFieldsHTTPTypesTests {
        @Test func fieldsKeepTheirOrderTheirCaseAndTheirRepeatsBothWays() throws {
            var fields = Sluice.HTTPFields()
            for (name, value) in [("Via", "1.1 a"), ("accept", "text/html"), ("VIA", "1.1 b"), ("X-Empty", "")] {
                try fields.append(name: name, value: value)
            }
            let converted = try HTTPTypes.HTTPFields(fields)
            #expect(converted.map(\.name.rawName) == ["Via", "accept", "VIA", "X-Empty"])
            #expect(converted[values: .via] == ["1.1 a", "1.1 b"])
            #expect(try Sluice.HTTPFields(converted) == fields)
        }

        /// swift-http-types holds at most 65,534 fields and stops the process on one more: the
        /// conversion counts first and refuses with `.invalidHeader` (issue 41: 70,000 fields
        /// killed the process). 65,534 still convert.
        @Test func moreFieldsThanHTTPTypesHoldsAreRefusedNotATrap() throws {
            var fields = Sluice.HTTPFields()
            for index in 0..<70_000 { try fields.append(name: "X-F", value: String(index)) }
            #expect {
                try HTTPTypes.HTTPFields(fields)
            } throws: {
                let error = $0 as? SluiceError
                return error?.code == .invalidHeader
                    && error?.message == "70000 fields are more than swift-http-types' HTTPFields holds (at most 65534)"
            }
            var most = Sluice.HTTPFields()
            for index in 0..<65_534 { try most.append(name: "X-F", value: String(index)) }
            #expect(try HTTPTypes.HTTPFields(most).count == 65_534)
        }
    }
#endif
