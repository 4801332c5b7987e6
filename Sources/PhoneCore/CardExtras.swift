import WireFormat

/// What `/api/live-activity/current` says about the shown task beside the fields the card always had
/// (docs/protocol.md §3.3, §4.2): the person's recorded answer, when the ended task was dismissed, and how many other
/// tasks there are. All optional: a board that predates them sends none, and the card shows what it
/// did before.
package struct CardExtras: Sendable, Hashable {
    package var answer: AnswerView?
    /// RFC 3339, as sent; set once the person dismissed the ended task.
    package var dismissedAt: String?
    package var others: OtherTasks?

    package init(answer: AnswerView? = nil, dismissedAt: String? = nil, others: OtherTasks? = nil) {
        self.answer = answer
        self.dismissedAt = dismissedAt
        self.others = others
    }

    /// The members' names in the snapshot (and, for `others`, also beside it in the envelope).
    enum Key: String, CodingKey {
        case answer
        case dismissedAt = "dismissed_at"
        case others
    }

    /// Reads the members leniently from a snapshot object: each of the wrong type reads as absent.
    /// `others` is taken from the snapshot, else from `envelope` (the body around it).
    init(snapshot: KeyedDecodingContainer<Key>?, envelope: KeyedDecodingContainer<Key>?) {
        self.init(
            answer: AnswerView.named(snapshot?.lenient(AnswerView.self, forKey: .answer)),
            dismissedAt: snapshot?.lenient(String.self, forKey: .dismissedAt),
            others: snapshot?.lenient(OtherTasks.self, forKey: .others)
                ?? envelope?.lenient(OtherTasks.self, forKey: .others))
    }
}
