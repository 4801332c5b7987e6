import FoundationEssentials
import WireFormat

/// The board's task snapshots, their revisions and idempotency records, and the transition ring
/// (docs/protocol.md §3 to §7). A value with no I/O and no clock: the shell owns one behind a lock, passes `now` in,
/// and persists it (it is `Codable`) as each operation's `Durability` asks.
///
/// `revision` goes up by one with every accepted change; a snapshot's `revision` is the store revision at
/// its last change. So the store revision is the ETag, and snapshot revisions order tasks by recency
/// without trusting the wall clock.
package struct TaskStore: Sendable, Hashable {
    /// Also the most a store may have: the task list's size bound (`WireLimits.maxTaskListBytes`) counts on it.
    package static let defaultCapacity = WireLimits.maxTasks

    /// Most tasks kept (1…`defaultCapacity`); a start into a full store evicts the task that ended first.
    package let capacity: Int
    package internal(set) var revision: UInt64
    package internal(set) var transitions: TransitionLog
    var snapshots: [String: TaskSnapshot]
    /// Keyed by the `Idempotency-Key`.
    var idempotencyRecords: [String: IdempotencyRecord]
    /// When each active task last had news from its agent (a start, any update, a heartbeat). Not part of the
    /// snapshot, so a heartbeat that finds the task fresh changes no revision and sends no Wake.
    var lastNews: [String: Date]
    /// Each task's clock stamp on the monotonic clock (`anchorClocks`); persisted as ages (`elapsed`).
    var monotonicAnchors: [String: MonotonicAnchor]
    /// Tasks loaded from disk that `anchorClocks` has not anchored yet, and how it will.
    var restoredAnchors: [String: MonotonicAnchor.Restored] = [:]
    /// The monotonic instant of the last `anchorClocks`: the moment the ages written to disk are measured at.
    var anchoredAt: Duration?

    /// An empty store whose transition ring has `generation` (e.g. derived from the board epoch).
    package init(
        generation: String, capacity: Int = TaskStore.defaultCapacity,
        transitionCapacity: Int = TransitionLog.defaultCapacity
    ) {
        self.capacity = min(max(1, capacity), Self.defaultCapacity)
        self.revision = 0
        self.transitions = TransitionLog(generation: generation, capacity: transitionCapacity)
        self.snapshots = [:]
        self.idempotencyRecords = [:]
        self.lastNews = [:]
        self.monotonicAnchors = [:]
    }

    /// Equal when they hold the same tasks, records, ring and news: where each task sits on this process's
    /// monotonic clock is bookkeeping, which a load rebuilds (`anchorClocks`).
    package static func == (lhs: TaskStore, rhs: TaskStore) -> Bool {
        lhs.capacity == rhs.capacity && lhs.revision == rhs.revision && lhs.transitions == rhs.transitions
            && lhs.snapshots == rhs.snapshots && lhs.idempotencyRecords == rhs.idempotencyRecords
            && lhs.lastNews == rhs.lastNews
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(revision)
        hasher.combine(snapshots)
    }

    package func task(id: String) -> TaskSnapshot? {
        snapshots[id]
    }

    /// Every task, most recently changed first (by revision, which follows `updated_at` on a sane clock).
    package var tasks: [TaskSnapshot] {
        snapshots.values.sorted { $0.revision > $1.revision }
    }

    /// Every task in no particular order, for whoever visits them all and needs no order.
    package var unorderedTasks: Dictionary<String, TaskSnapshot>.Values { snapshots.values }

    package var count: Int { snapshots.count }

    package var activeCount: Int { snapshots.values.count(where: { $0.status.isActive }) }

    /// The transitions after cursor `since`; see `TransitionLog.events(since:generation:)`.
    package func events(since: UInt64, generation: String?) -> EventsPage {
        transitions.events(since: since, generation: generation)
    }

    /// Drops every transition and starts generation `generation` (the board epoch changed). A change:
    /// the revision goes up, so cached answers are not reused.
    package mutating func resetTransitions(generation: String) {
        revision += 1
        transitions.reset(generation: generation)
        checkInvariants()
    }

    /// Commits `snapshot` as this mutation's result and records the transitions from `old`.
    mutating func commit(_ snapshot: TaskSnapshot, replacing old: TaskSnapshot?, now: Date) -> [TransitionEvent] {
        revision += 1
        var stored = snapshot
        stored.revision = revision
        snapshots[stored.requestID] = stored
        lastNews[stored.requestID] = stored.status.isActive ? lastNews[stored.requestID] ?? now : nil
        // A start or an end: the clock stamp is a new one, whatever its value.
        if old?.status.isActive != stored.status.isActive { forgetAnchor(of: stored.requestID) }
        return Transition.changes(from: old, to: stored).map {
            transitions.append(
                requestID: stored.requestID, transition: $0, at: now, phoneID: stored.phoneID, revision: stored.revision
            )
        }
    }

    /// Removes a task and the idempotency record that points to it.
    mutating func removeTask(id: String) {
        snapshots[id] = nil
        lastNews[id] = nil
        forgetAnchor(of: id)
        idempotencyRecords = idempotencyRecords.filter { $0.value.requestID != id }
    }

    /// Refuses a snapshot whose JSON would exceed `TaskLimits.maxEncodedSnapshotBytes`.
    /// (Counted by an encoder only when the cheap bound does not clear it: `encodedByteCountBound`.)
    static func checkEncodedSize(_ snapshot: TaskSnapshot) throws(TaskStoreError) {
        let limit = TaskLimits.maxEncodedSnapshotBytes
        guard snapshot.encodedByteCountBound > limit else { return }
        let size = snapshot.encodedByteCount
        guard size <= limit else {
            throw .invalid(
                TaskValidationError(
                    field: nil,
                    message: "the task snapshot would be \(size) bytes of JSON, over the \(limit)-byte limit; "
                        + "shorten current_step, last_error or the other texts"))
        }
    }

    /// Refuses a write whose `expected_revision` is not the task's current revision.
    static func checkExpectedRevision(_ expected: UInt64?, of snapshot: TaskSnapshot) throws(TaskStoreError) {
        guard let expected, expected != snapshot.revision else { return }
        throw .conflict(
            "stale expected_revision \(expected): task \(TaskValidationError.quoted(snapshot.requestID)) "
                + "is at revision \(snapshot.revision)")
    }
}
