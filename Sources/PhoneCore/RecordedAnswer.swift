/// The person's latest answer to a task as the board recorded it: the snapshot's `answer` member,
/// `{"answer":"stop","answer_id":"ans-5f0c","phone_id":"phone-1","answered_at":"…"}`. Read leniently,
/// like the rest of the snapshot: an older board leaves it out, a newer one may name an answer this build
/// does not know (kept as sent).
package struct RecordedAnswer: Sendable, Hashable, Decodable {
    /// `stop`, `done` or `refuse` (kept as sent).
    package var answer: String
    package var answerID: String?
    package var phoneID: String?
    package var answeredAt: String?

    package init(answer: String, answerID: String? = nil, phoneID: String? = nil, answeredAt: String? = nil) {
        self.answer = answer
        self.answerID = answerID
        self.phoneID = phoneID
        self.answeredAt = answeredAt
    }

    enum CodingKeys: String, CodingKey {
        case answer
        case answerID = "answer_id"
        case phoneID = "phone_id"
        case answeredAt = "answered_at"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            answer: try container.decode(String.self, forKey: .answer),
            answerID: container.lenient(String.self, forKey: .answerID),
            phoneID: container.lenient(String.self, forKey: .phoneID),
            answeredAt: container.lenient(String.self, forKey: .answeredAt))
    }

    /// The card's line for it: "Stop requested — waiting for the agent", "Answered: done".
    package var cardLine: String {
        switch PersonAnswer(rawValue: answer) {
        case .stop?: "Stop requested — waiting for the agent"
        case .done?, .refuse?, .dismiss?, nil: "Answered: " + (BoardText.line(answer, limit: 32) ?? "?")
        }
    }
}
