import Testing

@testable import Configuration

@Suite struct TOMLDocumentTests {
    @Test func keepsTablesAndEntriesInFileOrderWithLines() throws {
        let text = """
            # leading comment
            top = 1

            [first]   # comment after a header
            a = "x"   # comment after a value
              b = 2
            [ second ]
            \tc = true
            """
        let document = try parseTOML(text).get()
        #expect(document.tables.map(\.name) == ["", "first", "second"])
        #expect(document.tables.map(\.line) == [nil, 4, 7])
        #expect(document[table: ""]?["top"] == TOMLEntry(key: "top", value: .integer(1), line: 2))
        #expect(
            document[table: "first"]?.entries == [
                TOMLEntry(key: "a", value: .string("x"), line: 5),
                TOMLEntry(key: "b", value: .integer(2), line: 6),
            ])
        #expect(document[table: "second"]?["c"] == TOMLEntry(key: "c", value: .boolean(true), line: 8))
        #expect(document.file == "test.toml")
    }

    @Test(arguments: ["", "\n", "\n\n  \n", "# only a comment", "# comment\n\n# another\n", "\u{FEFF}", "\r\n"])
    func emptyDocumentsHaveOnlyAnEmptyRootTable(text: String) throws {
        let document = try parseTOML(text).get()
        #expect(document.tables == [TOMLDocument.Table(name: "", line: nil)])
    }

    @Test func acceptsCRLFLineEnds() throws {
        let document = try parseTOML("[t]\r\nkey = \"v\"\r\n# comment\r\nother = [\r\n  \"a\",\r\n]\r\nlast = 3").get()
        let table = try #require(document[table: "t"])
        #expect(table["key"] == TOMLEntry(key: "key", value: .string("v"), line: 2))
        #expect(table["other"]?.line == 4)
        #expect(table["last"] == TOMLEntry(key: "last", value: .integer(3), line: 7))
    }

    @Test func acceptsALeadingByteOrderMark() throws {
        let document = try parseTOML("\u{FEFF}[t]\nkey = 1\n").get()
        #expect(document[table: "t"]?["key"] == TOMLEntry(key: "key", value: .integer(1), line: 2))
    }

    @Test func acceptsKeysWithDigitsDashesAndUnderscores() throws {
        let document = try parseTOML("[t-1_x]\n1 = 1\nA-b_9 = 2\n").get()
        #expect(document[table: "t-1_x"]?.entries.map(\.key) == ["1", "A-b_9"])
    }

    @Test func keysAndTablesMayShareNamesAcrossTables() throws {
        let document = try parseTOML("[a]\nx = 1\n[b]\nx = 2\n").get()
        #expect(document[table: "a"]?["x"]?.value == .integer(1))
        #expect(document[table: "b"]?["x"]?.value == .integer(2))
    }

    @Test(arguments: [
        ("[t]\nkey = 1\nkey = 2\n", "test.toml:3: t.key: duplicate key (first set on line 2)"),
        ("key = 1\n\nkey = \"x\"\n", "test.toml:3: key: duplicate key (first set on line 1)"),
        ("[t]\n[u]\n[t]\n", "test.toml:3: t: duplicate table [t] (first defined on line 1)"),
        ("[a.b]\n", "test.toml:1: a: dotted table names are not supported; use a top-level table such as [a]"),
        ("[[a]]\n", "test.toml:1: arrays of tables ([[…]]) are not supported"),
        ("[]\n", "test.toml:1: expected a table name, found ']'"),
        ("[\"q\"]\n", "test.toml:1: quoted table names are not supported; use letters, digits, '_' and '-'"),
        ("[t\nkey = 1\n", "test.toml:1: t: expected ']' after the table name, found end of line"),
        ("[t] key = 1\n", "test.toml:1: t: unexpected text after the table header: 'key = 1'"),
        ("[t]\na.b = 1\n", "test.toml:2: t.a: dotted keys are not supported; put the key under its [table]"),
        ("[t]\n\"a\" = 1\n", "test.toml:2: quoted keys are not supported; use letters, digits, '_' and '-'"),
        ("[t]\n= 1\n", "test.toml:2: expected a key, found '='"),
        ("[t]\nkey 1\n", "test.toml:2: t.key: expected '=' after the key, found '1'"),
        ("[t]\nkey\n", "test.toml:2: t.key: expected '=' after the key, found end of line"),
        ("[t]\nkey =\n", "test.toml:2: t.key: missing value after '='"),
        ("[t]\nkey = ", "test.toml:2: t.key: missing value after '='"),
        ("[t]\nkey = \"a\" \"b\"\n", "test.toml:2: t.key: unexpected text after the value: '\"b\"'"),
        ("[t]\nkey = \"a\"b\n", "test.toml:2: t.key: unexpected text after the value: 'b'"),
        ("[t]\nkey = true false\n", "test.toml:2: t.key: unexpected text after the value: 'false'"),
        ("[t]\nkey = 1, 2\n", "test.toml:2: t.key: unexpected text after the value: ', 2'"),
        ("[t]\nkey = 1 ; comment\n", "test.toml:2: t.key: unexpected text after the value: '; comment'"),
        ("[t]\nkey = 1 // comment\n", "test.toml:2: t.key: unexpected text after the value: '// comment'"),
        ("[t]\nkey = 1\ranother = 2\n", "test.toml:2: t.key: carriage return (U+000D) not followed by a line feed"),
        ("# bad \u{07} comment\n", "test.toml:1: control character U+0007 is not allowed in a comment"),
        ("[t]\nkey = 1 # bad \u{7F}\n", "test.toml:2: t.key: control character U+007F is not allowed in a comment"),
        ("[t]\n\u{FEFF}key = 1\n", "test.toml:2: expected a key, found U+FEFF"),
        ("[t]\n\u{A0}key = 1\n", "test.toml:2: expected a key, found U+00A0"),
        ("[t]\nkéy = 1\n", "test.toml:2: t.k: expected '=' after the key, found U+00E9"),
    ])
    func rejectsWithExactDescriptions(text: String, description: String) throws {
        let error = try #require(parseTOML(text).failure)
        #expect(error.kind == .syntax)
        #expect(error.description == description)
    }

    @Test func tabsInCommentsAreFine() throws {
        let document = try parseTOML("# a\tcomment\n[t]\t# another\tone\nkey = 1\t#\tthird\n").get()
        #expect(document[table: "t"]?["key"]?.value == .integer(1))
    }
}
