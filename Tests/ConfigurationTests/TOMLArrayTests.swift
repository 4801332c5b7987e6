import Testing

@testable import Configuration

@Suite struct TOMLArrayTests {
    private func strings(_ value: TOMLValue?) -> [String]? {
        guard case let .array(items)? = value else { return nil }
        return items.map { item in
            if case let .string(text) = item.value { return text }
            return "<\(item.value.typeName)>"
        }
    }

    @Test(arguments: [
        ("[]", [String]()),
        ("[ ]", []),
        (#"["a"]"#, ["a"]),
        (#"["a", "b"]"#, ["a", "b"]),
        (#"["a","b",]"#, ["a", "b"]),
        (#"[ "a" , 'b' , ]"#, ["a", "b"]),
        ("[\"a\",\n\"b\"\n]", ["a", "b"]),
        ("[\n]", []),
        ("[ # only a comment\n]", []),
        ("[\n  \"a\",  # first\n  # a whole-line comment\n  \"b\", # trailing comma and comment\n]", ["a", "b"]),
        ("[\r\n  \"a\",\r\n  \"b\"\r\n]", ["a", "b"]),
        ("[\t\"a\"\t,\t\"b\"\t]", ["a", "b"]),
        (##"["[not nested]", "a,b", "#"]"##, ["[not nested]", "a,b", "#"]),
    ])
    func parsesArrays(written: String, expected: [String]) throws {
        let value = try parseValue(written).get()
        #expect(strings(value) == expected)
    }

    @Test func elementsRememberTheirLines() throws {
        let document = try parseTOML("[t]\nkey = [\n  \"a\",\n\n  \"b\"]\nnext = 1\n").get()
        let entry = try #require(document[table: "t"]?["key"])
        #expect(entry.line == 2)
        guard case let .array(items) = entry.value else {
            Issue.record("expected an array")
            return
        }
        #expect(items.map(\.line) == [3, 5])
        #expect(document[table: "t"]?["next"]?.line == 6)
    }

    @Test(arguments: [
        ("[]", "empty array"), (#"["a"]"#, "array of strings"), ("[1, 2]", "array of integers"),
        ("[true]", "array of booleans"), (#"["a", 1]"#, "mixed array"),
    ])
    func namesArrayTypes(written: String, typeName: String) throws {
        #expect(try parseValue(written).get().typeName == typeName)
    }

    @Test(arguments: [
        ("[,]", 2, "expected a value or ']' in the array, found ','"),
        (#"["a",,"b"]"#, 2, "expected a value or ']' in the array, found ','"),
        (#"["a" "b"]"#, 2, "expected ',' or ']' after an array element, found '\"'"),
        (#"[["a"]]"#, 2, "nested arrays are not supported (or is the ']' of the array on line 2 missing?)"),
        (#"["a", { b = 1 }]"#, 2, "inline tables ({…}) are not supported; use a [table]"),
        (#"["a", bare]"#, 2, "invalid value 'bare' (strings must be quoted: \"bare\")"),
        (
            "[\"a\",\n\"b\"\nnext = 1\n", 4,
            "expected ',' or ']' after an array element, found 'n' (is the ']' of the array on line 2 missing?)"
        ),
        ("[\"a\",\n[u]\n", 3, "nested arrays are not supported (or is the ']' of the array on line 2 missing?)"),
        ("[\"a\",\n", 2, "unterminated array: missing ']'"),
        ("[\n\"a\"", 2, "unterminated array: missing ']'"),
        ("[", 2, "unterminated array: missing ']'"),
        ("[\"a\" # comment ]", 2, "unterminated array: missing ']'"),
        ("[\"a\"] extra", 2, "unexpected text after the value: 'extra'"),
        ("[\"a\"\r]", 2, "carriage return (U+000D) not followed by a line feed"),
    ])
    func rejectsBadArrays(written: String, line: Int, message: String) throws {
        let error = try #require(parseValue(written).failure)
        #expect(error.kind == .syntax)
        #expect(error.key == "t.key")
        #expect(error.line == line)
        #expect(error.message == message)
    }
}
