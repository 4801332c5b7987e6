/// One entry of the board's transition ring: `{"id":43,"request_id":"…","transition":"handoff","at":"…"}`.
package struct BoardEvent: Sendable, Equatable {
    /// The ring cursor of this event (1 for the first event of a generation).
    package var id: UInt64
    package var requestID: String
    package var transition: BoardTransition
    /// When the board recorded it (ISO-8601, board clock), as sent.
    package var at: String?

    package init(id: UInt64, requestID: String, transition: BoardTransition, at: String? = nil) {
        self.id = id
        self.requestID = requestID
        self.transition = transition
        self.at = at
    }
}

/// Strict where the cursor and the alert key depend on it (`id`, `request_id`, `transition`).
extension BoardEvent: Decodable {
    enum CodingKeys: String, CodingKey {
        case id
        case requestID = "request_id"
        case transition
        case at
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let requestID = try container.decode(String.self, forKey: .requestID)
        guard !requestID.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .requestID, in: container, debugDescription: "must not be empty")
        }
        self.init(
            id: try container.decode(UInt64.self, forKey: .id),
            requestID: requestID,
            transition: BoardTransition(rawValue: try container.decode(String.self, forKey: .transition)),
            at: container.lenient(String.self, forKey: .at))
    }
}
