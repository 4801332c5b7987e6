import FoundationEssentials
import WireFormat

/// A bounded ring of alert-worthy transitions with a cursor, so a phone that reads it after each
/// (possibly coalesced) Wake misses none (docs/protocol.md §5). Pure: the caller supplies the generation.
package struct TransitionLog: Sendable, Hashable {
    package static let defaultCapacity = 256

    /// Names this ring's id space; replaced by `reset(generation:)`, which restarts ids at 1.
    package internal(set) var generation: String
    /// Most events kept; the oldest is evicted first.
    package let capacity: Int
    /// The id of the newest event ever appended in this generation (0: none yet).
    package internal(set) var lastID: UInt64
    /// Oldest first; ids are consecutive and end at `lastID`.
    package internal(set) var events: [TransitionEvent]

    package init(generation: String, capacity: Int = TransitionLog.defaultCapacity) {
        self.generation = generation
        self.capacity = max(1, capacity)
        self.lastID = 0
        self.events = []
    }

    @discardableResult
    package mutating func append(
        requestID: String, transition: Transition, at date: Date, phoneID: String = "", answer: Answer? = nil,
        revision: UInt64? = nil
    ) -> TransitionEvent {
        lastID += 1
        let event = TransitionEvent(
            id: lastID, requestID: requestID, transition: transition, at: date, phoneID: phoneID, answer: answer,
            revision: revision)
        events.append(event)
        if events.count > capacity {
            events.removeFirst(events.count - capacity)
        }
        checkInvariants()
        return event
    }

    /// Starts a new generation (the board's epoch changed): every event is dropped and ids restart at 1.
    package mutating func reset(generation: String) {
        self.generation = generation
        lastID = 0
        events = []
        checkInvariants()
    }

    /// The events after cursor `since`, read by a client that last saw `generation` (nil: it has none).
    ///
    /// The cursor is stale, so `resetRequired` is set and every kept event is returned, when the generation
    /// is given and differs, or when `since` is ahead of `lastID` (a cursor this ring never handed out).
    /// `truncated` says events the client has not seen (after `since`, or any at all after a reset) were
    /// evicted. `next` is always `lastID`.
    package func events(since: UInt64, generation requested: String?) -> EventsPage {
        let resetRequired = (requested.map { $0 != generation } ?? false) || since > lastID
        let cursor = resetRequired ? 0 : since
        let truncated = events.first.map { cursor < $0.id - 1 } ?? false
        let unseen = events.drop(while: { $0.id <= cursor })
        return EventsPage(
            generation: generation, events: Array(unseen), next: lastID, truncated: truncated,
            resetRequired: resetRequired)
    }
}
