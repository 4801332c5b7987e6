import Testing

@testable import DBus
@testable import DBusModel

@Suite("DBusSignature")
struct DBusSignatureTests {
    static let valid: [String] = [
        "", "y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v",
        "ay", "as", "aay", "a{sv}", "a{qv}", "a{oa{sa{sv}}}", "(i)", "(isv)", "a(oa{sv})", "((y))", "sa{sv}as",
        String(repeating: "a", count: 32) + "y",
        String(repeating: "(", count: 32) + "y" + String(repeating: ")", count: 32),
    ]

    static let invalid: [(signature: String, reason: String)] = [
        ("a", "no element type"),
        ("()", "empty structure"),
        ("(i", "without a closing ')'"),
        ("i)", "unknown type code ')'"),
        ("{sv}", "outside an array"),
        ("a{vs}", "not a basic type"),
        ("a{(i)s}", "not a basic type"),
        ("a{s}", "without a value type"),
        ("a{svs}", "more than a key and a value"),
        ("a{sv", "more than a key and a value, or no closing"),
        ("z", "unknown type code 'z'"),
        ("m", "unknown type code 'm'"),
        (String(repeating: "a", count: 33) + "y", "nests arrays deeper than 32"),
        (String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33), "nests structures deeper"),
        (String(repeating: "i", count: 256), "the limit is 255"),
    ]

    @Test(arguments: valid)
    func acceptsWhatLibdbusAccepts(_ signature: String) throws {
        #expect(DBusLibrary.isValidSignature(signature))
        #expect(DBusSignature(signature).isValid)
        // Parsing and printing give the same characters back.
        let types = try DBusSignature(signature).types()
        #expect(DBusSignature(types).rawValue == signature)
    }

    @Test(arguments: invalid)
    func refusesWhatLibdbusRefusesAndSaysWhy(_ case_: (signature: String, reason: String)) {
        #expect(!DBusLibrary.isValidSignature(case_.signature))
        do {
            _ = try DBusSignature(validating: case_.signature)
            Issue.record("accepted '\(case_.signature)'")
        } catch {
            #expect(error.kind == .invalidSignature)
            #expect(error.message.contains(case_.reason), "\(error.message)")
        }
    }

    @Test func parsesNestedTypes() throws {
        let types = try DBusSignature("oa{sa{sv}}").types()
        #expect(types == [.objectPath, .dictionary(key: .string, value: .dictionary(key: .string, value: .variant))])
        #expect(try DBusSignature("a(ay)").singleType() == .array(.structure([.array(.byte)])))
        #expect(throws: DBusError.self) { try DBusSignature("ss").singleType() }
    }

    @Test func codeBuiltTypesAreCheckedToo() {
        #expect(throws: DBusError.self) { try DBusType.dictionary(key: .variant, value: .string).validate() }
        #expect(throws: DBusError.self) { try DBusType.structure([]).validate() }
        #expect(throws: Never.self) { try DBusType.dictionary(key: .uint16, value: .variant).validate() }
    }

    @Test func valuesKnowTheirSignatures() {
        #expect(DBusValue.vardict(["a": .int32(1)]).signature == "a{sv}")
        #expect(DBusValue.bytes([1, 2]).signature == "ay")
        #expect(DBusValue.managedObjects([:]).signature == "a{oa{sa{sv}}}")
        #expect(DBusValue.structure([.string("x"), .variant(.boolean(true))]).signature == "(sv)")
        #expect([DBusValue.objectPath("/a"), .vardict([:])].signature == "oa{sv}")
        #expect(DBusValue.variantDictionary(key: .uint16, [(.uint16(0x05F1), .bytes([1]))]).signature == "a{qv}")
    }
}
