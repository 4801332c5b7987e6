extension TOMLParser {
    /// Parses the value at the cursor. `arrayLine` is the line of the enclosing array's `[`, if any.
    mutating func parseValue(key: String, arrayLine: Int?) throws(ConfigurationError) -> TOMLValue {
        guard let scalar = peek else { throw syntaxError("missing value after '='", key: key) }
        switch scalar {
        case "\"":
            if peek(1) == "\"", peek(2) == "\"" {
                throw syntaxError("multi-line strings (\"\"\") are not supported", key: key)
            }
            return .string(try parseBasicString(key: key))
        case "'":
            if peek(1) == "'", peek(2) == "'" {
                throw syntaxError("multi-line literal strings (''') are not supported", key: key)
            }
            return .string(try parseLiteralString(key: key))
        case "[":
            if let arrayLine {
                throw syntaxError(
                    "nested arrays are not supported (or is the ']' of the array on line "
                        + "\(arrayLine) missing?)", key: key)
            }
            return .array(try parseArray(key: key))
        case "{":
            throw syntaxError("inline tables ({…}) are not supported; use a [table]", key: key)
        case "\n", "\r", "#":
            throw syntaxError("missing value after '='", key: key)
        default:
            var token = String.UnicodeScalarView()
            while let next = peek, next.isBareValueScalar {
                token.append(next)
                index += 1
            }
            guard !token.isEmpty else {
                throw syntaxError("expected a value, found \(describePeek())", key: key)
            }
            return try interpret(bareValue: String(token), key: key)
        }
    }

    private func interpret(bareValue token: String, key: String) throws(ConfigurationError) -> TOMLValue {
        switch token {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        default: break
        }
        let unsigned = token.first == "+" || token.first == "-" ? token.dropFirst() : Substring(token)
        if unsigned == "inf" || unsigned == "nan" {
            throw syntaxError("floating-point numbers are not supported", key: key)
        }
        guard let first = unsigned.unicodeScalars.first, first.isASCIIDigit else {
            throw syntaxError("invalid value '\(token)' (strings must be quoted: \"\(token)\")", key: key)
        }
        let radixPrefixed = unsigned.hasPrefix("0x") || unsigned.hasPrefix("0o") || unsigned.hasPrefix("0b")
        if !radixPrefixed {
            if unsigned.contains(":") || unsigned.dropFirst().contains("-") {
                throw syntaxError("dates and times are not supported", key: key)
            }
            if unsigned.contains(".") || unsigned.contains("e") || unsigned.contains("E") {
                throw syntaxError("floating-point numbers are not supported", key: key)
            }
        }
        switch TOMLInteger.parse(token) {
        case let .success(value): return .integer(value)
        case let .failure(failure): throw syntaxError("invalid integer '\(token)': \(failure.reason)", key: key)
        }
    }

    // MARK: Strings

    /// `"…"` with TOML escapes; must end on the line it starts.
    private mutating func parseBasicString(key: String) throws(ConfigurationError) -> String {
        index += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else {
                throw syntaxError("unterminated string: missing closing '\"'", key: key)
            }
            switch scalar {
            case "\"":
                index += 1
                return String(result)
            case "\n", "\r":
                throw syntaxError("unterminated string: missing closing '\"' before the end of the line", key: key)
            case "\\":
                result.append(try parseEscape(key: key))
            default:
                if scalar.isForbiddenControl {
                    throw syntaxError("control character \(scalar.codePoint) in a string must be escaped", key: key)
                }
                result.append(scalar)
                index += 1
            }
        }
    }

    private mutating func parseEscape(key: String) throws(ConfigurationError) -> Unicode.Scalar {
        index += 1
        guard let escape = peek, escape != "\n", escape != "\r" else {
            throw syntaxError("unterminated string: missing closing '\"'", key: key)
        }
        index += 1
        switch escape {
        case "\"": return "\""
        case "\\": return "\\"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "u": return try parseUnicodeEscape(digits: 4, key: key)
        case "U": return try parseUnicodeEscape(digits: 8, key: key)
        default:
            let shown = escape.isForbiddenControl ? escape.codePoint : String(Character(escape))
            throw syntaxError(
                "invalid escape '\\\(shown)' (allowed: \\\" \\\\ \\b \\f \\n \\r \\t \\uXXXX "
                    + "\\UXXXXXXXX)", key: key)
        }
    }

    private mutating func parseUnicodeEscape(digits: Int, key: String) throws(ConfigurationError) -> Unicode.Scalar {
        let name = digits == 4 ? "\\u" : "\\U"
        var value: UInt32 = 0
        var text = ""
        for _ in 0..<digits {
            guard let scalar = peek, let digit = scalar.hexDigitValue else {
                throw syntaxError("\(name) needs exactly \(digits) hex digits", key: key)
            }
            value = value << 4 | digit
            text.unicodeScalars.append(scalar)
            index += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw syntaxError(
                "\(name)\(text) is not a Unicode scalar value (surrogates and values above "
                    + "10FFFF are not allowed)", key: key)
        }
        return scalar
    }

    /// `'…'`: no escapes, must end on the line it starts.
    private mutating func parseLiteralString(key: String) throws(ConfigurationError) -> String {
        index += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else {
                throw syntaxError("unterminated string: missing closing \"'\"", key: key)
            }
            switch scalar {
            case "'":
                index += 1
                return String(result)
            case "\n", "\r":
                throw syntaxError("unterminated string: missing closing \"'\" before the end of the line", key: key)
            default:
                if scalar.isForbiddenControl {
                    throw syntaxError(
                        "control character \(scalar.codePoint) is not allowed in a literal string",
                        key: key)
                }
                result.append(scalar)
                index += 1
            }
        }
    }

    // MARK: Arrays

    /// `[a, b, …]`, possibly over several lines, with comments and a trailing comma.
    private mutating func parseArray(key: String) throws(ConfigurationError) -> [TOMLItem] {
        let startLine = line
        index += 1
        var items: [TOMLItem] = []
        while true {
            try skipArrayBlanks(key: key)
            guard let scalar = peek else { throw unterminatedArray(key: key, startLine: startLine) }
            if scalar == "]" {
                index += 1
                return items
            }
            if scalar == "," {
                throw syntaxError("expected a value or ']' in the array, found ','", key: key)
            }
            let itemLine = line
            let value = try parseValue(key: key, arrayLine: startLine)
            items.append(TOMLItem(value: value, line: itemLine))
            try skipArrayBlanks(key: key)
            switch peek {
            case nil:
                throw unterminatedArray(key: key, startLine: startLine)
            case ",":
                index += 1
            case "]":
                index += 1
                return items
            default:
                let hint = line == startLine ? "" : " (is the ']' of the array on line \(startLine) missing?)"
                throw syntaxError(
                    "expected ',' or ']' after an array element, found \(describePeek())\(hint)",
                    key: key)
            }
        }
    }

    /// Inside arrays, line ends and comments are blanks too.
    private mutating func skipArrayBlanks(key: String) throws(ConfigurationError) {
        while let scalar = peek {
            switch scalar {
            case " ", "\t": index += 1
            case "\n", "\r": try consumeLineEnd(key: key)
            case "#": try skipComment(key: key)
            default: return
            }
        }
    }

    private func unterminatedArray(key: String, startLine: Int) -> ConfigurationError {
        syntaxError("unterminated array: missing ']'", key: key, line: startLine)
    }
}

extension Unicode.Scalar {
    /// Characters of unquoted values (`true`, `-12`, `0x1f`, `1_000`); wider than TOML needs so that
    /// floats and dates are read whole and rejected with a clear message.
    fileprivate var isBareValueScalar: Bool {
        isBareKeyScalar || self == "+" || self == "." || self == ":"
    }

    /// 0…15 for ASCII hex digits.
    var hexDigitValue: UInt32? {
        switch value {
        case 0x30...0x39: return value - 0x30
        case 0x41...0x46: return value - 0x41 + 10
        case 0x61...0x66: return value - 0x61 + 10
        default: return nil
        }
    }
}
