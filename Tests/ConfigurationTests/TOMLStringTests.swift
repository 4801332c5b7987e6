import Testing

@testable import Configuration

@Suite struct TOMLStringTests {
    @Test(arguments: [
        (#""plain""#, "plain"),
        (#""""#, ""),
        (#""a\"b""#, "a\"b"),
        (#""a\\b""#, "a\\b"),
        (#""line\nnext""#, "line\nnext"),
        (#""col\tcol""#, "col\tcol"),
        (#""cr\r""#, "cr\r"),
        (#""bell\b""#, "bell\u{08}"),
        (#""feed\f""#, "feed\u{0C}"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\U0001F600""#, "😀"),
        (#""\U0010FFFF""#, "\u{10FFFF}"),
        (#""\u0000""#, "\u{0}"),
        ("\"raw\ttab\"", "raw\ttab"),
        (#""héllo ✓""#, "héllo ✓"),
        (##""# not a comment""##, "# not a comment"),
        (#""'single' inside""#, "'single' inside"),
        (#"'C:\path\n'"#, #"C:\path\n"#),
        ("''", ""),
        (#"'say "hi"'"#, "say \"hi\""),
        ("'raw\ttab'", "raw\ttab"),
    ])
    func parsesStrings(written: String, expected: String) {
        #expect(parseValue(written).success == .string(expected))
    }

    @Test(arguments: [
        (#""\x41""#, #"invalid escape '\x' (allowed: \" \\ \b \f \n \r \t \uXXXX \UXXXXXXXX)"#),
        (#""\e""#, #"invalid escape '\e'"#),
        (#""\a""#, #"invalid escape '\a'"#),
        (#""\'""#, #"invalid escape '\''"#),
        (#""\ ""#, #"invalid escape '\ '"#),
        (#""\0""#, #"invalid escape '\0'"#),
        (#""\u12""#, #"\u needs exactly 4 hex digits"#),
        (#""\u12G4""#, #"\u needs exactly 4 hex digits"#),
        (#""\U0001F60""#, #"\U needs exactly 8 hex digits"#),
        (#""\uD800""#, #"\uD800 is not a Unicode scalar value"#),
        (#""\uDFFF""#, #"\uDFFF is not a Unicode scalar value"#),
        (#""\U00110000""#, #"\U00110000 is not a Unicode scalar value"#),
        ("\"bad\u{01}char\"", "control character U+0001 in a string must be escaped"),
        ("\"bad\u{7F}char\"", "control character U+007F in a string must be escaped"),
        ("\"bad\u{1B}char\"", "control character U+001B in a string must be escaped"),
        ("'bad\u{01}char'", "control character U+0001 is not allowed in a literal string"),
        (#""unterminated"#, "unterminated string: missing closing '\"' before the end of the line"),
        ("'unterminated", "unterminated string: missing closing \"'\" before the end of the line"),
        (#""ends in escape\"#, "unterminated string: missing closing '\"'"),
        (#""""multi""""#, #"multi-line strings (""") are not supported"#),
        ("'''multi'''", "multi-line literal strings (''') are not supported"),
    ])
    func rejectsBadStrings(written: String, messagePrefix: String) throws {
        let error = try #require(parseValue(written).failure)
        #expect(error.kind == .syntax)
        #expect(error.line == 2)
        #expect(error.key == "t.key")
        #expect(error.message.hasPrefix(messagePrefix), "\(error.message)")
    }

    @Test func unterminatedStringAtEndOfFileNamesItsLine() throws {
        let error = try #require(parseTOML("[t]\n\nkey = \"no end", file: "x.toml").failure)
        #expect(error.description == "x.toml:3: t.key: unterminated string: missing closing '\"'")
    }

    @Test func unterminatedLiteralStringAtEndOfFile() throws {
        let error = try #require(parseTOML("[t]\nkey = 'no end").failure)
        #expect(error.description == "test.toml:2: t.key: unterminated string: missing closing \"'\"")
    }

    @Test func stringsDoNotContinueOnTheNextLine() throws {
        let error = try #require(parseTOML("[t]\nkey = \"first\nsecond\"\n").failure)
        #expect(error.line == 2)
        #expect(error.message.contains("before the end of the line"))
    }
}
