import WireFormat

/// The person's latest answer as the board recorded it (a snapshot's `answer`, the answer's `200`), as the phone
/// shows it. Read leniently, like the rest of the snapshot: an older board leaves it out, a newer one may name an
/// answer this build does not know (kept as sent); one without a name is no recorded answer.
extension AnswerView {
    /// `view` when it names an answer, else nil (`Card.recordedAnswer`, `AnswerReceipt`).
    static func named(_ view: AnswerView?) -> AnswerView? { view?.answer == nil ? nil : view }

    /// The answer's name as sent: `stop`, or one this build does not know.
    package var name: String { answer?.rawValue ?? "" }

    /// The card's line for it: "Stop requested — waiting for the agent", "Answered: done".
    package var cardLine: String {
        switch answer {
        case .known(.stop)?: "Stop requested — waiting for the agent"
        default: "Answered: " + (BoardText.line(name, limit: 32) ?? "?")
        }
    }
}
