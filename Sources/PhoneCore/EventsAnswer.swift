/// The answer of `GET /api/live-activity/events?since=N&generation=G` (docs/protocol.md §5.2).
package struct EventsAnswer: Sendable, Equatable {
    /// The board epoch the events belong to (part of every alert key); nil if the board left it out.
    package var epoch: UInt16?
    /// The ring's generation; a client sends it back with its cursor.
    package var generation: String?
    /// Oldest first.
    package var events: [BoardEvent]
    /// The cursor to send as `since` next time; nil if the board left it out.
    package var next: UInt64?
    /// Events after the cursor were evicted before this read: some transitions were missed.
    package var truncated: Bool
    /// The cursor was from another generation: forget it and read from 0.
    package var resetRequired: Bool

    package init(
        epoch: UInt16?, generation: String?, events: [BoardEvent], next: UInt64?, truncated: Bool = false,
        resetRequired: Bool = false
    ) {
        self.epoch = epoch
        self.generation = generation
        self.events = events
        self.next = next
        self.truncated = truncated
        self.resetRequired = resetRequired
    }
}
