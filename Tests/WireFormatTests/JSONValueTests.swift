import FoundationEssentials
import Testing
import WireFormat

@Suite struct JSONValueTests {
    private func decode(_ json: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    }

    private func encode(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func numbersKeepTheirExactSpelling() throws {
        #expect(try decode("18446744073709551615") == .number("18446744073709551615"))
        #expect(try decode("-9223372036854775808") == .number("-9223372036854775808"))
        #expect(try decode("0.25") == .number("0.25"))
        #expect(try decode("7").unsignedInteger == 7)
        #expect(try decode("-7").unsignedInteger == nil)
        #expect(try decode("0.5").double == 0.5)
        #expect(try decode(#""7""#).double == nil)
    }

    @Test func roundTripsToTheSameBytes() throws {
        let json =
            #"{"a":[1,-2,0.25,true,null,"x/y"],"b":{"c":18446744073709551615,"d":"\n"},"e":false}"#
        #expect(try encode(decode(json)) == json)
    }

    @Test func valuesBuiltInCodeEncodeAsNumbers() throws {
        #expect(
            try encode(.object(["p": JSONValue(0.21), "n": JSONValue(UInt64(42)), "s": "t"]))
                == #"{"n":42,"p":0.21,"s":"t"}"#)
        #expect(JSONValue(Double.nan) == .null)
        #expect(JSONValue(Double.infinity) == .null)
    }

    /// Each kind reads as itself, whichever kind the decoder tries first.
    @Test func everyKindReadsAsItself() throws {
        #expect(try decode("null") == .null)
        #expect(try decode("true") == .bool(true))
        #expect(try decode("false") == .bool(false))
        #expect(try decode(#""true""#) == .string("true"))
        #expect(try decode(#""1""#) == .string("1"))
        #expect(try decode(#""""#) == .string(""))
        #expect(try decode("-1") == .number("-1"))
        #expect(try decode("9223372036854775808") == .number("9223372036854775808"))
        #expect(try decode("1.5") == .number("1.5"))
        #expect(try decode("[]") == .array([]))
        #expect(try decode("{}") == .object([:]))
        #expect(
            try decode(#"[{"a":"b"},[true],"c",2]"#)
                == .array([.object(["a": "b"]), .array([.bool(true)]), "c", .number("2")]))
        #expect(try decode("1e999") == .unreadable)
    }

    @Test func readability() throws {
        #expect(try decode(#"{"a":[1,{"b":null}]}"#).isReadable)
        #expect(!JSONValue.array([.null, .object(["x": .unreadable])]).isReadable)
    }
}
