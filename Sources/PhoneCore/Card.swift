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
    /// How many other tasks this phone may see are active and waiting, as `/current` said it with the snapshot
    /// (nil: not said).
    package var others: OtherTasks?

    package init(
        state: CardState, snapshot: SnapshotView? = nil, problem: BoardProblem? = nil, link: LinkState,
        others: OtherTasks? = nil
    ) {
        self.state = state
        self.snapshot = snapshot
        self.problem = problem
        self.link = link
        self.others = others
    }

    /// The person's answer the board recorded for the task shown (one without a name is none).
    package var recordedAnswer: AnswerView? { AnswerView.named(snapshot?.answer) }

    /// The card for `link`, the last good `answer` (nil: none yet) and the last fetch's `problem`
    /// (nil: it succeeded).
    ///
    /// A terminal task stays on the card for as long as the board returns it (its retention window),
    /// because the card only ever shows the last answer.
    package static func derive(link: LinkState, answer: CurrentAnswer?, problem: BoardProblem?) -> Card {
        // Without the cable whatever was fetched is stale, and fetch errors are expected: say only that.
        if link.usb == .down {
            return Card(state: .disconnected, link: link)
        }
        switch answer {
        case nil:
            return Card(state: .disconnected, problem: problem, link: link)
        case .notFound?:
            return Card(state: .standby, problem: problem, link: link)
        case let .snapshot(snapshot, others)?:
            return Card(
                state: CardState(snapshot: snapshot), snapshot: snapshot, problem: problem, link: link, others: others)
        }
    }
}
