import WireFormat

/// The tasks this phone has seen that may still be on the board, each as the board last said it: the desktop
/// shows one card per task (`DesktopCardPlan`). The board's phone API has no list of a phone's tasks; the phone
/// sees the task `/current` shows first on every fetch, and every task it reads for an alert's words, so those
/// are the tasks kept. `others` says when no other is active (the active ones kept have ended or gone); a
/// `not_found` current answer says there are none at all; a dismissed task leaves at once.
package struct SeenTasks: Sendable, Equatable {
    /// Most tasks kept (the first seen is dropped first): the desktop is not flooded by a hostile board.
    package static let limit = 16

    struct Entry: Sendable, Equatable {
        var snapshot: SnapshotView
        /// What `/current` said of the other tasks when it last showed this one (nil: a task's own read).
        var others: OtherTasks?
    }

    /// Request ids, first seen first.
    private(set) var order: [String] = []
    private(set) var entries: [String: Entry] = [:]

    package init() {}

    /// The board's word on one task: kept unless it is older than what is known (a task read that crossed a
    /// newer `current`), or dismissed (then it leaves).
    mutating func saw(_ snapshot: SnapshotView, others: OtherTasks?) {
        guard let id = snapshot.requestID else { return }
        if let known = entries[id], let old = known.snapshot.revision, let new = snapshot.revision, new < old { return }
        if snapshot.dismissedAt != nil {
            remove(id)
            return
        }
        if entries[id] == nil { order.append(id) }
        entries[id] = Entry(snapshot: snapshot, others: others)
        if order.count > Self.limit {
            let dropped = order.removeFirst()
            entries[dropped] = nil
        }
    }

    /// A `current` answer: nothing for this phone clears every task; no other active or waiting task beside the
    /// current one clears the other active ones (they ended or left; an ended one comes back with its alert's
    /// read). Ended tasks stay until dismissed or gone: their cards leave at their dismissal time.
    mutating func current(_ answer: CurrentAnswer) {
        switch answer {
        case .notFound:
            order = []
            entries = [:]
        case let .snapshot(task, others):
            saw(task, others: others)
            if let others, others.active == 0, others.waiting == 0 {
                for id in order where id != task.requestID {
                    if let seen = entries[id]?.snapshot, CardState(snapshot: seen).isActive { remove(id) }
                }
            }
        }
    }

    /// The task as last seen.
    func snapshot(of id: String) -> SnapshotView? { entries[id]?.snapshot }

    mutating func remove(_ id: String) {
        order.removeAll { $0 == id }
        entries[id] = nil
    }

    /// One card per task, first seen first, with the link and the last fetch's problem.
    func cards(link: LinkState, problem: BoardProblem?) -> [Card] {
        order.compactMap { id in
            entries[id].map {
                Card(
                    state: CardState(snapshot: $0.snapshot), snapshot: $0.snapshot, problem: problem, link: link,
                    others: $0.others)
            }
        }
    }
}
