import Configuration

/// Writes a parsed TOML document back as text in the subset the parser reads: basic strings with every
/// control character escaped, decimal integers, one-line arrays. Line numbers are not kept, so two documents
/// with the same tables, keys and values give the same text.
enum TOMLWriter {
    static func text(of document: TOMLDocument) -> String {
        var text = ""
        for table in document.tables {
            if !table.name.isEmpty { text += "[\(table.name)]\n" }
            for entry in table.entries {
                text += "\(entry.key) = \(value(entry.value))\n"
            }
        }
        return text
    }

    private static func value(_ value: TOMLValue) -> String {
        switch value {
        case let .string(text): return quoted(text)
        case let .integer(number): return String(number)
        case let .boolean(flag): return flag ? "true" : "false"
        case let .array(items): return "[" + items.map { Self.value($0.value) }.joined(separator: ", ") + "]"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
