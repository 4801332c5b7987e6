/// How soon the shell must write the store to disk after an operation (docs/protocol.md §7.1).
package enum Durability: Sendable, Hashable {
    /// Nothing changed (an idempotent replay or a no-op update): no write, no Wake.
    case unchanged
    /// An ordinary update: write within 1 s.
    case lazy
    /// A start, an end, or an update that recorded a transition: write and fsync before answering.
    case immediate
}

/// The result of a write: the task as it now is, how urgently to persist it, and what it recorded.
package struct TaskChange: Sendable, Hashable {
    package var snapshot: TaskSnapshot
    package var durability: Durability
    /// Transitions appended to the ring by this operation, oldest first.
    package var transitions: [TransitionEvent]

    package init(snapshot: TaskSnapshot, durability: Durability, transitions: [TransitionEvent] = []) {
        self.snapshot = snapshot
        self.durability = durability
        self.transitions = transitions
    }

    /// Whether the store changed (and a Wake is due).
    package var changed: Bool { durability != .unchanged }
}
