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
    }
#endif
