import FoundationEssentials
import LiveActivity
import WireFormat

/// Encoding and decoding of JSON bodies, in one place so every answer has the same shape and bytes.
package enum JSONBody {
    /// Parses a body that must be a JSON object, for small request bodies whose keys are checked one by one.
    package static func object(_ body: [UInt8]) throws(JSONError) -> [String: JSONValue] {
        guard !body.isEmpty else { throw JSONError(status: 400, code: "invalid", message: "request body is empty") }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw JSONError(status: 400, code: "invalid", message: "request body is not valid UTF-8")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            throw JSONError(status: 400, code: "invalid", message: "request body is not valid JSON")
        }
        // A number beyond Double's range: not a value the board can read.
        guard value.isReadable else {
            throw JSONError(status: 400, code: "invalid", message: "request body is not valid JSON")
        }
        guard case let .object(object) = value else {
            throw JSONError(status: 400, code: "invalid", message: "request body must be a JSON object")
        }
        return object
    }

    /// `{"status":"ok", …members}` with sorted keys, so equal content gives equal bytes.
    package static func ok(_ members: [EnvelopeKey: any Encodable & Sendable]) -> [UInt8] {
        encode(
            StatusEnvelope(status: "ok", fields: Dictionary(uniqueKeysWithValues: members.map { ($0.rawValue, $1) })))
    }

    /// The same for a health document (`/status`, `/api/bluetooth/status`), whose members are its own.
    static func okDocument(_ members: [String: any Encodable & Sendable]) -> [UInt8] {
        encode(StatusEnvelope(status: "ok", fields: members))
    }

    /// `{"live_activity":{…},"status":"ok"}` for `snapshot`, and `/api/live-activity/current`'s with `others` among
    /// the snapshot's members: what `ok([.liveActivity: snapshot])` encodes, written by hand
    /// (`TaskSnapshot.appendJSON`), since one is encoded for every change before its Wake leaves.
    package static func liveActivity(_ snapshot: TaskSnapshot, others: OtherTasks? = nil) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(1_024)
        body += liveActivityOpening
        do {
            try snapshot.appendJSON(to: &body, others: others)
        } catch {
            return JSONError(status: 500, code: "internal", message: "could not encode the answer: \(error)").body
        }
        body += okClosing
        return body
    }

    /// `{"live_activity":` and `,"status":"ok"}`: the envelope's members in sorted order.
    private static let liveActivityOpening = Array(#"{"\#(EnvelopeKey.liveActivity.rawValue)":"#.utf8)
    private static let okClosing = Array(#","\#(EnvelopeKey.status.rawValue)":"ok"}"#.utf8)

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

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(status, forKey: JSONKey(EnvelopeKey.status))
        for (name, value) in fields {
            try container.encode(value, forKey: JSONKey(stringValue: name))
        }
    }
}
