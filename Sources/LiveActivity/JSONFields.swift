import FoundationEssentials
import WireFormat

/// The top-level members of a JSON object body, keyed by name. Unknown members are kept but never looked at,
/// which is what makes decoding permissive; known ones are read through the typed accessors in
/// `JSONFields+Access.swift`, which make it strict.
struct JSONFields: Sendable, Decodable {
    var values: [String: JSONValue]

    init(values: [String: JSONValue]) {
        self.values = values
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        var values: [String: JSONValue] = [:]
        for key in container.allKeys {
            values[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        self.values = values
    }

    /// Reads a request body, turning every whole-body problem into an error with `field == nil`.
    static func parse(_ bytes: some Collection<UInt8>) throws(TaskValidationError) -> JSONFields {
        let data = Data(bytes)
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw TaskValidationError(field: nil, message: "body is empty; expected a JSON object")
        }
        if let offset = firstInvalidUTF8Offset(in: data) {
            throw TaskValidationError(field: nil, message: "body is not valid UTF-8 (bad byte at offset \(offset))")
        }
        do {
            return try JSONDecoder().decode(JSONFields.self, from: data)
        } catch let error as DecodingError {
            throw TaskValidationError(error)
        } catch {
            throw TaskValidationError(field: nil, message: "body could not be read: \(error)")
        }
    }

    /// Checked before JSON parsing so the message says "UTF-8" rather than "not JSON".
    private static func firstInvalidUTF8Offset(in data: Data) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
