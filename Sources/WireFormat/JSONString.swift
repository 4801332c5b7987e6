/// JSON string literals (RFC 8259 §7), written by hand where a body is built without an encoder:
/// the board's error bodies, the phone's app-state body, aidenctl's own error objects.
package enum JSONString {
    /// `value` between quotes, with `"`, `\` and control characters escaped.
    package static func quote(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
