import WireFormat

/// One entry of the board's transition ring: `{"id":43,"request_id":"…","transition":"handoff","at":"…"}`.
package struct BoardEvent: Sendable, Equatable {
    /// The ring cursor of this event (1 for the first event of a generation).
    package var id: UInt64
    package var requestID: String
    /// Kept as sent when a newer board names a transition this build does not know.
    package var transition: OpenEnum<Transition>
    /// When the board recorded it (ISO-8601, board clock), as sent.
    package var at: String?
    /// The phone the task is addressed to ("" for any phone); nil from a board that does not say.
    package var phoneID: String?

    package init(
        id: UInt64, requestID: String, transition: OpenEnum<Transition>, at: String? = nil, phoneID: String? = nil
    ) {
        self.id = id
        self.requestID = requestID
        self.transition = transition
        self.at = at
        self.phoneID = phoneID
    }

    /// Members read here beside `EventKey`'s (issue #15).
    private enum AddressKey: String, CodingKey {
        case phoneID = "phone_id"
    }
}

/// Strict where the cursor and the alert key depend on it (`id`, `request_id`, `transition`). The request id
/// is held to the rule the board holds agents to (`IdentifierRule`): it goes into an alert line, a
/// notification, a task read's query and the saved alert record, so one a board could never have accepted
/// refuses the whole answer, as any broken entry does, and the cursor stays before it.
extension BoardEvent: Decodable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EventKey.self)
        self.init(
            id: try container.decode(UInt64.self, forKey: .id),
            requestID: try container.decodeRequestID(forKey: .requestID),
            transition: OpenEnum(rawValue: try container.decode(String.self, forKey: .transition)),
            at: container.lenient(String.self, forKey: .at),
            phoneID: try? decoder.container(keyedBy: AddressKey.self).lenient(String.self, forKey: .phoneID))
    }
}
