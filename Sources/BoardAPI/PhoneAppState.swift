import FoundationEssentials
import WireFormat

/// The companion app's state as the phone reports it (docs/protocol.md §3.3 `POST /api/phone/app-state`).
package struct PhoneAppState: Sendable, Equatable, Codable {
    package var state: AppState
    package var returnEntry: String
    package var returnEntryAvailable: Bool
    package var phoneID: String
    package var reportedAt: Date

    enum CodingKeys: String, CodingKey {
        case state
        case returnEntry = "return_entry"
        case returnEntryAvailable = "return_entry_available"
        case phoneID = "phone_id"
        case reportedAt = "reported_at"
    }

    package init(
        state: AppState, returnEntry: String = "", returnEntryAvailable: Bool = false, phoneID: String = "",
        reportedAt: Date
    ) {
        self.state = state
        self.returnEntry = returnEntry
        self.returnEntryAvailable = returnEntryAvailable
        self.phoneID = phoneID
        self.reportedAt = reportedAt
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
        var entry = ""
        switch object["return_entry"] {
        case nil, .null?: break
        case let .string(text)? where text.unicodeScalars.count <= 200: entry = text
        default:
            throw JSONError(
                status: 400, code: "invalid",
                message: "field \"return_entry\": must be a string of at most 200 characters",
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
            reportedAt: now)
    }
}
