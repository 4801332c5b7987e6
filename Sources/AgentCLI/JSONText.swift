/// Byte-level edits of JSON text the daemon sent, so `--json` prints the daemon's object as received
/// (same keys, order and number spelling) on exactly one line.
enum JSONText {
    /// Drops whitespace outside strings. The input is valid JSON (it was decoded first).
    static func compact(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                out.append(byte)
            } else if ![0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `{"key":"value",…rest of object}`: adds a leading string member to a compact JSON object.
    static func prepending(key: String, value: String, to object: String) -> String {
        guard object.hasPrefix("{") else { return object }
        let rest = object.dropFirst()
        let member = quote(key) + ":" + quote(value)
        return "{" + member + (rest.hasPrefix("}") ? "" : ",") + rest
    }

    /// `{"status":"error","error":{"code":…,"message":…}}`, the agent API's error shape, for failures that
    /// have no daemon answer to print.
    static func errorObject(code: String, message: String) -> String {
        "{\"status\":\"error\",\"error\":{\"code\":\(quote(code)),\"message\":\(quote(message))}}"
    }

    /// A JSON string literal (RFC 8259 §7).
    static func quote(_ value: String) -> String {
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
