/// A strict recursive-descent parser for the TOML subset the configurations use.
///
/// One pass over Unicode scalars, tracking the line. Supported: `[table]` headers (bare names),
/// `key = value` with bare keys, basic and literal strings, integers, booleans, flat arrays,
/// comments, LF and CRLF line ends, a leading UTF-8 byte order mark. Everything else that TOML
/// allows (dotted keys and tables, quoted keys, multi-line strings, floats, dates, inline
/// tables, arrays of tables, nested arrays) is rejected with an error that says so.
struct TOMLParser {
    let scalars: [Unicode.Scalar]
    let file: String
    var index = 0
    var line = 1
    var tables: [TOMLDocument.Table] = [TOMLDocument.Table(name: "", line: nil)]

    init(text: String, file: String) {
        self.scalars = Array(text.unicodeScalars)
        self.file = file
    }

    mutating func parseDocument() throws(ConfigurationError) -> TOMLDocument {
        // Editors on some systems write a byte order mark; it carries no meaning in UTF-8.
        if peek == "\u{FEFF}" { index += 1 }
        while true {
            skipBlanks()
            guard let scalar = peek else { break }
            switch scalar {
            case "#", "\n", "\r": try finishLine(after: "the comment", key: nil)
            case "[": try parseTableHeader()
            default: try parseKeyValue()
            }
        }
        return TOMLDocument(file: file, tables: tables)
    }

    // MARK: Lines, tables, keys

    private mutating func parseTableHeader() throws(ConfigurationError) {
        let headerLine = line
        index += 1
        if peek == "[" { throw syntaxError("arrays of tables ([[…]]) are not supported") }
        skipBlanks()
        let name = try parseBareName(what: "table name")
        skipBlanks()
        if peek == "." {
            throw syntaxError(
                "dotted table names are not supported; use a top-level table such as [\(name)]",
                key: name)
        }
        guard peek == "]" else {
            throw syntaxError("expected ']' after the table name, found \(describePeek())", key: name)
        }
        index += 1
        if let previous = tables.first(where: { $0.name == name }) {
            let place = previous.line.map { " (first defined on line \($0))" } ?? ""
            throw syntaxError("duplicate table [\(name)]\(place)", key: name, line: headerLine)
        }
        tables.append(TOMLDocument.Table(name: name, line: headerLine))
        try finishLine(after: "the table header", key: name)
    }

    private mutating func parseKeyValue() throws(ConfigurationError) {
        let keyLine = line
        let key = try parseBareName(what: "key")
        let tableName = tables[tables.count - 1].name
        let path = tableName.isEmpty ? key : "\(tableName).\(key)"
        skipBlanks()
        if peek == "." {
            throw syntaxError("dotted keys are not supported; put the key under its [table]", key: path)
        }
        guard peek == "=" else {
            throw syntaxError("expected '=' after the key, found \(describePeek())", key: path)
        }
        index += 1
        if let previous = tables[tables.count - 1][key] {
            throw syntaxError("duplicate key (first set on line \(previous.line))", key: path, line: keyLine)
        }
        skipBlanks()
        let value = try parseValue(key: path, arrayLine: nil)
        tables[tables.count - 1].entries.append(TOMLEntry(key: key, value: value, line: keyLine))
        try finishLine(after: "the value", key: path)
    }

    /// A bare key or table name: ASCII letters, digits, `_` and `-`.
    private mutating func parseBareName(what: String) throws(ConfigurationError) -> String {
        if peek == "\"" || peek == "'" {
            throw syntaxError("quoted \(what)s are not supported; use letters, digits, '_' and '-'")
        }
        var name = String.UnicodeScalarView()
        while let scalar = peek, scalar.isBareKeyScalar {
            name.append(scalar)
            index += 1
        }
        guard !name.isEmpty else { throw syntaxError("expected a \(what), found \(describePeek())") }
        return String(name)
    }

    /// After a header or value: optional blanks and comment, then a line end or the end of the file.
    mutating func finishLine(after what: String, key: String?) throws(ConfigurationError) {
        skipBlanks()
        if peek == "#" { try skipComment(key: key) }
        guard let scalar = peek else { return }
        guard scalar == "\n" || scalar == "\r" else {
            throw syntaxError("unexpected text after \(what): '\(restOfLine())'", key: key)
        }
        try consumeLineEnd(key: key)
    }

    // MARK: Scanning helpers

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    mutating func skipBlanks() {
        while peek == " " || peek == "\t" { index += 1 }
    }

    /// Consumes LF or CRLF; a carriage return on its own is not a line end in TOML.
    mutating func consumeLineEnd(key: String?) throws(ConfigurationError) {
        if peek == "\r" {
            guard peek(1) == "\n" else {
                throw syntaxError("carriage return (U+000D) not followed by a line feed", key: key)
            }
            index += 1
        }
        index += 1
        line += 1
    }

    /// From `#` to the end of the line; control characters other than tab are not allowed.
    mutating func skipComment(key: String?) throws(ConfigurationError) {
        index += 1
        while let scalar = peek, scalar != "\n", scalar != "\r" {
            if scalar.isForbiddenControl {
                throw syntaxError("control character \(scalar.codePoint) is not allowed in a comment", key: key)
            }
            index += 1
        }
    }

    func syntaxError(_ message: String, key: String? = nil, line: Int? = nil) -> ConfigurationError {
        ConfigurationError(kind: .syntax, file: file, line: line ?? self.line, key: key, message: message)
    }

    func describePeek() -> String {
        guard let scalar = peek else { return "end of file" }
        if scalar == "\n" || scalar == "\r" { return "end of line" }
        return scalar.quotedForMessage
    }

    /// The rest of the current line (shortened), to show what is unexpected.
    func restOfLine() -> String {
        var text = String.UnicodeScalarView()
        var position = index
        while position < scalars.count, scalars[position] != "\n", scalars[position] != "\r", text.count < 40 {
            text.append(scalars[position])
            position += 1
        }
        return String(text)
    }
}

extension Unicode.Scalar {
    var isBareKeyScalar: Bool {
        switch value {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x5F, 0x2D: return true
        default: return false
        }
    }

    /// Control characters TOML forbids unescaped in strings and comments (tab is allowed).
    var isForbiddenControl: Bool { (value < 0x20 && value != 0x09) || value == 0x7F }

    var isASCIIDigit: Bool { (0x30...0x39).contains(value) }

    /// `U+000D`.
    var codePoint: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `'x'` for printable ASCII, else the code point, so invisible characters show up in messages.
    var quotedForMessage: String {
        (0x21...0x7E).contains(value) ? "'\(Character(self))'" : codePoint
    }
}
