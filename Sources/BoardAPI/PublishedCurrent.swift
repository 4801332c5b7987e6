import FoundationEssentials
import LiveActivity
import WireFormat

/// `/api/live-activity/current`'s answer for every phone, selected (docs/protocol.md §3.4) and encoded when the
/// board is published, so a request looks its phone up instead of selecting and encoding.
struct PublishedCurrent: Sendable {
    /// What one phone is shown: the chosen task and the counts beside it (nil: `not_found`), and the body.
    struct Answer: Sendable {
        let choice: CurrentChoice?
        let body: [UInt8]

        static let notFound = Answer(choice: nil, body: JSONBody.notFound)
    }

    /// By phone id, for every id a task in the store names; every other phone (the empty id too) sees only the
    /// tasks for any phone, so `anyone`.
    let byPhone: [String: Answer]
    let anyone: Answer
    /// The retention the answers were selected with.
    let retention: Duration
    /// From when an ended task shown at publication may leave the card (`TaskStore.firstShownEnd`); until the
    /// writer prunes it and publishes anew, requests select afresh. nil: no ended task is shown.
    let firstShownEnd: (wall: Date, instant: Duration?)?

    /// No answer here changes with the clock: no ended task is shown, so only the next publication changes them.
    var isTimeless: Bool { firstShownEnd == nil }

    /// The published answer for `phone` if it still holds at (`now`, `instant`); nil: select afresh.
    func answer(forPhone phone: String, now: Date, instant: Duration?, retention: Duration) -> Answer? {
        guard retention == self.retention else { return nil }
        if let end = firstShownEnd {
            guard now < end.wall else { return nil }
            if let instant {
                guard let limit = end.instant, instant < limit else { return nil }
            }
        }
        return byPhone[phone] ?? anyone
    }
}

/// The task a phone is shown, at its revision, with the counts beside it: equal choices have equal bodies.
struct CurrentChoice: Hashable, Sendable {
    let requestID: String
    let revision: UInt64
    let others: OtherTasks
}
