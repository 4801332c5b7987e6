import FoundationEssentials
import WireFormat

/// One entry of the transition ring:
/// `{"id":43,"request_id":"…","transition":"handoff","at":"…","phone_id":"…"}`.
package struct TransitionEvent: Sendable, Hashable {
    /// The cursor: 1 for the first event of a generation, then one more for each event.
    package var id: UInt64
    package var requestID: String
    package var transition: Transition
    package var at: Date
    /// The task's `phone_id` when the transition happened ("": any phone), so each phone alerts only for
    /// the tasks it may show.
    package var phoneID: String
    /// On an `answered` event: what the person answered (`done` or `refuse`); nil on every other.
    package var answer: Answer?
    /// The task's revision after the change that made this transition: an answer the person gave on an earlier
    /// revision is stale if this transition changed what it answers (`TaskStore.answer`). Nil in a ring written
    /// before events carried it.
    package var revision: UInt64?

    package init(
        id: UInt64, requestID: String, transition: Transition, at: Date, phoneID: String = "", answer: Answer? = nil,
        revision: UInt64? = nil
    ) {
        self.id = id
        self.requestID = requestID
        self.transition = transition
        self.at = at
        self.phoneID = phoneID
        self.answer = answer
        self.revision = revision
    }
}

/// Member names from `EventKey`, which the phone's `BoardEvent` reads too. A ring written before
/// `phone_id` existed loads with "" (any phone).
extension TransitionEvent: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EventKey.self)
        id = try container.decode(UInt64.self, forKey: .id)
        requestID = try container.decode(String.self, forKey: .requestID)
        transition = try container.decode(Transition.self, forKey: .transition)
        at = try container.decodeTimestamp(forKey: .at)
        phoneID = try container.decodeIfPresent(String.self, forKey: .phoneID) ?? ""
        answer = try container.decodeIfPresent(Answer.self, forKey: .answer)
        revision = try container.decodeIfPresent(UInt64.self, forKey: .revision)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: EventKey.self)
        try container.encode(id, forKey: .id)
        try container.encode(requestID, forKey: .requestID)
        try container.encode(transition, forKey: .transition)
        try container.encode(Timestamp.format(at), forKey: .at)
        try container.encode(phoneID, forKey: .phoneID)
        try container.encodeIfPresent(answer, forKey: .answer)
        try container.encodeIfPresent(revision, forKey: .revision)
    }
}
