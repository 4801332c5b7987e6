import FoundationEssentials
import LiveActivity

/// Encoding and decoding of JSON bodies, in one place so every answer has the same shape and bytes.
package enum JSONBody {
    /// A loosely typed JSON value, for small request bodies whose keys we check one by one.
    package enum Value: Sendable, Equatable, Decodable {
        case null, bool(Bool), number(Double), string(String), array([Value]), object([String: Value])

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let list = try? container.decode([Value].self) {
                self = .array(list)
            } else {
                self = .object(try container.decode([String: Value].self))
            }
        }
    }

    /// Parses a body that must be a JSON object.
    package static func object(_ body: [UInt8]) throws(JSONError) -> [String: Value] {
        guard !body.isEmpty else { throw JSONError(status: 400, code: "invalid", message: "request body is empty") }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw JSONError(status: 400, code: "invalid", message: "request body is not valid UTF-8")
        }
        let value: Value
        do {
            value = try JSONDecoder().decode(Value.self, from: Data(body))
        } catch {
            throw JSONError(status: 400, code: "invalid", message: "request body is not valid JSON")
        }
        guard case let .object(object) = value else {
            throw JSONError(status: 400, code: "invalid", message: "request body must be a JSON object")
        }
        return object
    }

    /// `{"status":"ok", …fields}` with sorted keys, so equal content gives equal bytes.
    package static func ok(_ fields: [String: any Encodable & Sendable]) -> [UInt8] {
        encode(StatusEnvelope(status: "ok", fields: fields))
    }

    /// `{"status":"not_found"}`.
    package static let notFound: [UInt8] = Array(#"{"status":"not_found"}"#.utf8)

    static func encode(_ value: some Encodable) -> [UInt8] {
        do {
            return Array(try LiveActivityJSON.makeEncoder().encode(value))
        } catch {
            // Our own types always encode; should one not, say so instead of sending a broken body.
            return JSONError(status: 500, code: "internal", message: "could not encode the answer: \(error)").body
        }
    }
}

/// A top-level object with a `status` member and arbitrary other members.
private struct StatusEnvelope: Encodable {
    let status: String
    let fields: [String: any Encodable & Sendable]

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(status, forKey: Key(stringValue: "status"))
        for (name, value) in fields {
            try container.encode(value, forKey: Key(stringValue: name))
        }
    }
}
