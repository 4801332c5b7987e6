/// The answer to "which transitions happened after cursor N?" (docs/protocol.md §5.2, docs/task-store.md).
/// The HTTP layer adds `status` and `epoch`.
package struct EventsPage: Sendable, Hashable {
    /// The ring's current generation; a client stores it with `next`.
    package var generation: String
    /// Oldest first.
    package var events: [TransitionEvent]
    /// The cursor to pass as `since` next time: the id of the newest event in the ring (0 when empty).
    package var next: UInt64
    /// Events after the cursor were evicted before this read: the client missed some transitions.
    package var truncated: Bool
    /// The cursor was not from this generation: the client must forget its cursor and take `events`
    /// (every event still kept) as the new start.
    package var resetRequired: Bool

    package init(generation: String, events: [TransitionEvent], next: UInt64, truncated: Bool, resetRequired: Bool) {
        self.generation = generation
        self.events = events
        self.next = next
        self.truncated = truncated
        self.resetRequired = resetRequired
    }
}

extension EventsPage: Codable {
    enum CodingKeys: String, CodingKey {
        case generation
        case events
        case next
        case truncated
        case resetRequired = "reset_required"
    }
}
