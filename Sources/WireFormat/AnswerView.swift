/// A snapshot's `answer` as the phone and aidenctl read it: tolerant like `SnapshotView` (every member optional,
/// a member of the wrong type reads as absent, an answer name this build does not know is kept as sent).
package struct AnswerView: Sendable, Hashable {
    package var answer: OpenEnum<Answer>?
    package var answerID: String?
    package var phoneID: String?
    /// ISO-8601, as the board wrote it.
    package var answeredAt: String?

    package init(
        answer: OpenEnum<Answer>? = nil, answerID: String? = nil, phoneID: String? = nil, answeredAt: String? = nil
    ) {
        self.answer = answer
        self.answerID = answerID
        self.phoneID = phoneID
        self.answeredAt = answeredAt
    }
}

/// Decoding fails only when the value is not an object; encoding writes the members present.
extension AnswerView: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnswerKey.self)
        func text(_ key: AnswerKey) -> String? { container.lenient(String.self, forKey: key) }
        self.init()
        for key in AnswerKey.allCases {
            switch key {
            case .answer: answer = text(key).map(OpenEnum.init(rawValue:))
            case .answerID: answerID = text(key)
            case .phoneID: phoneID = text(key)
            case .answeredAt: answeredAt = text(key)
            }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for key in AnswerKey.allCases {
            switch key {
            case .answer: try container.encodeIfPresent(answer, forKey: key)
            case .answerID: try container.encodeIfPresent(answerID, forKey: key)
            case .phoneID: try container.encodeIfPresent(phoneID, forKey: key)
            case .answeredAt: try container.encodeIfPresent(answeredAt, forKey: key)
            }
        }
    }
}
