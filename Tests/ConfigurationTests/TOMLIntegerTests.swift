import Testing

@testable import Configuration

@Suite struct TOMLIntegerTests {
    @Test(
        arguments: [
            ("0", 0), ("+0", 0), ("-0", 0), ("42", 42), ("+99", 99), ("-17", -17),
            ("1_000", 1000), ("5_349_221", 5_349_221), ("1_2_3", 123),
            ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
            ("0x1d6b", 0x1d6b), ("0xDEAD_beef", 0xdead_beef), ("0x0104", 0x0104), ("0x7FFFFFFFFFFFFFFF", Int64.max),
            ("0o755", 0o755), ("0o0", 0), ("0b1010", 10), ("0b0000_0001", 1),
        ] as [(String, Int64)])
    func parsesIntegers(written: String, expected: Int64) {
        #expect(parseValue(written).success == .integer(expected))
    }

    @Test(arguments: [
        ("007", "invalid integer '007': leading zeros are not allowed"),
        ("00", "invalid integer '00': leading zeros are not allowed"),
        ("-01", "invalid integer '-01': leading zeros are not allowed"),
        ("+0_1", "invalid integer '+0_1': leading zeros are not allowed"),
        ("1__000", "invalid integer '1__000': each '_' must sit between two digits"),
        ("1000_", "invalid integer '1000_': each '_' must sit between two digits"),
        ("0x_1f", "invalid integer '0x_1f': each '_' must sit between two digits"),
        ("-_1", "invalid value '-_1' (strings must be quoted: \"-_1\")"),
        ("9223372036854775808", "invalid integer '9223372036854775808': out of range for a 64-bit signed integer"),
        ("-9223372036854775809", "invalid integer '-9223372036854775809': out of range for a 64-bit signed integer"),
        ("99999999999999999999999", "invalid integer '99999999999999999999999': out of range"),
        ("0x8000000000000000", "invalid integer '0x8000000000000000': out of range"),
        ("0x1_0000_0000_0000_0000", "invalid integer '0x1_0000_0000_0000_0000': out of range"),
        ("+0x10", "invalid integer '+0x10': a hexadecimal integer cannot have a sign"),
        ("-0b1", "invalid integer '-0b1': a binary integer cannot have a sign"),
        ("0X10", "invalid integer '0X10': the prefix must be lower case (0x, 0o, 0b)"),
        ("0x", "invalid integer '0x': missing digits"),
        ("-", "invalid value '-' (strings must be quoted: \"-\")"),
        ("+", "invalid value '+' (strings must be quoted: \"+\")"),
        ("0xG1", "invalid integer '0xG1': 'G' is not a hexadecimal digit"),
        ("0o8", "invalid integer '0o8': '8' is not an octal digit"),
        ("0b102", "invalid integer '0b102': '2' is not a binary digit"),
        ("12abc", "invalid integer '12abc': 'a' is not a decimal digit"),
        ("0a", "invalid integer '0a': 'a' is not a decimal digit"),
        ("1.5", "floating-point numbers are not supported"),
        ("-0.0", "floating-point numbers are not supported"),
        ("1e3", "floating-point numbers are not supported"),
        ("5E+22", "floating-point numbers are not supported"),
        ("inf", "floating-point numbers are not supported"),
        ("-nan", "floating-point numbers are not supported"),
        ("1979-05-27", "dates and times are not supported"),
        ("07:32:00", "dates and times are not supported"),
    ])
    func rejectsBadIntegers(written: String, messagePrefix: String) throws {
        let error = try #require(parseValue(written).failure)
        #expect(error.kind == .syntax)
        #expect(error.key == "t.key")
        #expect(error.line == 2)
        #expect(error.message.hasPrefix(messagePrefix), "\(error.message)")
    }

    @Test(arguments: [("true", true), ("false", false)])
    func parsesBooleans(written: String, expected: Bool) {
        #expect(parseValue(written).success == .boolean(expected))
    }

    @Test(arguments: [
        ("True", "invalid value 'True' (strings must be quoted: \"True\")"),
        ("tru", "invalid value 'tru' (strings must be quoted: \"tru\")"),
        ("yes", "invalid value 'yes' (strings must be quoted: \"yes\")"),
        ("hci0", "invalid value 'hci0' (strings must be quoted: \"hci0\")"),
        ("@home", "expected a value, found '@'"),
        ("{ a = 1 }", "inline tables ({…}) are not supported; use a [table]"),
        ("", "missing value after '='"),
        ("# comment", "missing value after '='"),
    ])
    func rejectsOtherBareValues(written: String, message: String) throws {
        let error = try #require(parseValue(written).failure)
        #expect(error.message == message)
        #expect(error.key == "t.key")
    }
}
