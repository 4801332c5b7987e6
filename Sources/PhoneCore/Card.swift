import WireFormat

/// What the card shows: a state, the task behind it, a fetch problem if the last fetch failed, and
/// the link. Derived, never stored: the client keeps the last answer and the last problem and
/// derives the card again whenever one of them or the link changes.
package struct Card: Sendable, Equatable {
    package var state: CardState
    /// The task shown; nil for standby and disconnected.
    package var snapshot: SnapshotView?
    /// Why the last fetch failed. When set, `snapshot` is the last good one and may be stale.
    package var problem: BoardProblem?
    package var link: LinkState
    /// The person's recorded answer, the dismissal and the other tasks, as the board said them with the
    /// snapshot (empty with no snapshot).
    package var extras: CardExtras

    package init(
        state: CardState, snapshot: SnapshotView? = nil, problem: BoardProblem? = nil, link: LinkState,
        extras: CardExtras = CardExtras()
    ) {
        self.state = state
        self.snapshot = snapshot
        self.problem = problem
        self.link = link
        self.extras = extras
    }

    /// The card for `link`, the last good `answer` (nil: none yet) and the last fetch's `problem`
    /// (nil: it succeeded), with what the board said beside the snapshot (`extras`).
    ///
    /// A terminal task stays on the card for as long as the board returns it (its retention window),
    /// because the card only ever shows the last answer.
    package static func derive(
        link: LinkState, answer: CurrentAnswer?, problem: BoardProblem?, extras: CardExtras = CardExtras()
    ) -> Card {
        // Without the cable whatever was fetched is stale, and fetch errors are expected: say only that.
        if link.usb == .down {
            return Card(state: .disconnected, link: link)
        }
        switch answer {
        case nil:
            return Card(state: .disconnected, problem: problem, link: link)
        case .notFound?:
            return Card(state: .standby, problem: problem, link: link)
        case .snapshot(let snapshot)?:
            return Card(
                state: CardState(snapshot: snapshot), snapshot: snapshot, problem: problem, link: link, extras: extras)
        }
    }
}
