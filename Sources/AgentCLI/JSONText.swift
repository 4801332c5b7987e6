import FoundationEssentials
import WireFormat

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
        let member = JSONString.quote(key) + ":" + JSONString.quote(value)
        return "{" + member + (rest.hasPrefix("}") ? "" : ",") + rest
    }

    /// A value as one line of JSON with sorted keys (numbers as they were sent), for JSON Lines output.
    static func sortedLine(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// `{"status":"error","error":{"code":…,"message":…}}`, the agent API's error shape, for failures that
    /// have no daemon answer to print.
    static func errorObject(code: String, message: String) -> String {
        "{\"status\":\"error\",\"error\":{\"code\":\(JSONString.quote(code)),\"message\":\(JSONString.quote(message))}}"
    }
}
