import FoundationEssentials
import LiveActivity
import Logging
import WireFormat

/// The companion app's state as the phone reports it (docs/protocol.md §3.3 `POST /api/phone/app-state`).
package struct PhoneAppState: Sendable, Equatable, Encodable {
    package var state: AppState
    /// How the person gets back to the task from the phone (nil: no way, `""` on the wire).
    package var returnEntry: ReturnEntry?
    package var returnEntryAvailable: Bool
    package var phoneID: String
    package var reportedAt: Date
    /// The phone's wall clock when it sent the report (`phone_time`), if it said; `BoardClock` decides from it.
    package var phoneTime: Date?

    enum CodingKeys: String, CodingKey {
        case state
        case returnEntry = "return_entry"
        case returnEntryAvailable = "return_entry_available"
        case phoneID = "phone_id"
        case reportedAt = "reported_at"
        case phoneTime = "phone_time"
    }

    /// Times as RFC 3339 strings, like every time the board writes; `phone_time` null when not reported.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(returnEntry?.rawValue ?? "", forKey: .returnEntry)
        try container.encode(returnEntryAvailable, forKey: .returnEntryAvailable)
        try container.encode(phoneID, forKey: .phoneID)
        try container.encode(Timestamp.format(reportedAt), forKey: .reportedAt)
        try container.encode(phoneTime.map(Timestamp.format), forKey: .phoneTime)
    }

    package init(
        state: AppState, returnEntry: ReturnEntry? = nil, returnEntryAvailable: Bool = false, phoneID: String = "",
        reportedAt: Date, phoneTime: Date? = nil
    ) {
        self.state = state
        self.returnEntry = returnEntry
        self.returnEntryAvailable = returnEntryAvailable
        self.phoneID = phoneID
        self.reportedAt = reportedAt
        self.phoneTime = phoneTime
    }

    /// Parses the request body strictly on values, permissively on unknown keys.
    package static func decode(_ body: [UInt8], now: Date) throws(JSONError) -> PhoneAppState {
        let object = try JSONBody.object(body)
        guard let stateText = object["state"] else {
            throw JSONError(status: 400, code: "invalid", message: "field \"state\" is required", field: "state")
        }
        guard case let .string(raw) = stateText, let state = AppState(rawValue: raw) else {
            throw JSONError(
                status: 400, code: "invalid",
                message: "field \"state\": must be one of "
                    + AppState.allCases.map(\.rawValue).joined(separator: ", "),
                field: "state")
        }
        var entry: ReturnEntry?
        switch object["return_entry"] {
        case nil, .null?, .string("")?: break
        case let .string(text)? where ReturnEntry(rawValue: text) != nil: entry = ReturnEntry(rawValue: text)
        default:
            throw JSONError(
                status: 400, code: "invalid",
                message: "field \"return_entry\": must be one of \"\", "
                    + ReturnEntry.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "),
                field: "return_entry")
        }
        var available = false
        switch object["return_entry_available"] {
        case nil, .null?: break
        case let .bool(flag)?: available = flag
        default:
            throw JSONError(
                status: 400, code: "invalid", message: "field \"return_entry_available\": must be a boolean",
                field: "return_entry_available")
        }
        var phone = ""
        switch object["phone_id"] {
        case nil, .null?: break
        case let .string(text)? where IdentifierRule.isValid(text, allowEmpty: true): phone = text
        default:
            throw JSONError(
                status: 400, code: "invalid", message: "field \"phone_id\": \(IdentifierRule.expectation())",
                field: "phone_id")
        }
        return PhoneAppState(
            state: state, returnEntry: entry, returnEntryAvailable: available, phoneID: phone,
            reportedAt: now, phoneTime: try decodePhoneTime(object["phone_time"]))
    }

    /// `phone_time`: absent or null, or an RFC 3339 time inside `BoardClock`'s fixed plausible range (which no
    /// report can move, so no series of reports walks the board's stamps anywhere).
    private static func decodePhoneTime(_ value: JSONValue?) throws(JSONError) -> Date? {
        let expectation =
            "must be the phone's wall clock as an RFC 3339 time (2026-06-12T07:00:00Z), from "
            + "\(Timestamp.format(BoardClock.plausible.lowerBound)) and before "
            + "\(Timestamp.format(BoardClock.plausible.upperBound))"
        switch value {
        case nil, .null?:
            return nil
        case let .string(text)?:
            guard let time = Timestamp.parse(text) else {
                let sent = JSONString.quote(ControlCharacter.bounded(text, limit: 64))
                throw JSONError(
                    status: 400, code: "invalid",
                    message: "field \"phone_time\": \(expectation), got \(sent)",
                    field: "phone_time")
            }
            guard BoardClock.plausible.contains(time) else {
                throw JSONError(
                    status: 400, code: "invalid",
                    message: "field \"phone_time\": \(expectation), got \(Timestamp.format(time))", field: "phone_time")
            }
            return time
        default:
            throw JSONError(
                status: 400, code: "invalid", message: "field \"phone_time\": \(expectation)", field: "phone_time")
        }
    }
}
