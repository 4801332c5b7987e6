import FoundationEssentials
import WireFormat

/// One answer of the person's from the phone, as the board records it: what (`answer`), the id the phone chose
/// for the press (`answer_id`, which makes a retry idempotent), which phone (`phone_id`, empty: not said) and
/// when the board took it. A snapshot keeps the latest `stop`, `done` or `refuse` (`TaskSnapshot.answer`).
package struct TaskAnswer: Sendable, Hashable {
    package var answer: Answer
    package var answerID: String
    package var phoneID: String
    package var answeredAt: Date

    package init(answer: Answer, answerID: String, phoneID: String = "", answeredAt: Date) {
        self.answer = answer
        self.answerID = answerID
        self.phoneID = phoneID
        self.answeredAt = answeredAt
    }
}

/// `{"answer":"stop","answer_id":"ans-5f0c","phone_id":"phone-1","answered_at":"…"}`, every member present.
/// Decoding is for trusted input (the state file, the board's own answers), like `TaskSnapshot`'s.
extension TaskAnswer: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnswerKey.self)
        answer = try container.decode(Answer.self, forKey: .answer)
        answerID = try container.decode(String.self, forKey: .answerID)
        phoneID = try container.decodeIfPresent(String.self, forKey: .phoneID) ?? ""
        answeredAt = try container.decodeTimestamp(forKey: .answeredAt)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for key in AnswerKey.allCases {
            switch key {
            case .answer: try container.encode(answer, forKey: key)
            case .answerID: try container.encode(answerID, forKey: key)
            case .phoneID: try container.encode(phoneID, forKey: key)
            case .answeredAt: try container.encode(Timestamp.format(answeredAt), forKey: key)
            }
        }
    }
}

/// The body of `POST /api/live-activity/tasks/{request_id}/answer`: `{"answer":"stop","answer_id":"ans-5f0c",
/// "phone_id":"phone-1"}`. Unknown members are ignored, known ones are strict: `answer` one of `Answer`'s names,
/// `answer_id` an `IdentifierRule` id, `phone_id` one or empty (absent or null: empty), `revision` a whole number
/// from 0 to 2⁶⁴−1 (absent or null: the answer is for the task as it is now, and nothing is stale).
package struct AnswerRequest: Sendable, Hashable {
    package var answer: Answer
    package var answerID: String
    package var phoneID: String
    /// The task's `revision` on the card the person answered; nil: not said (a script, an older phone).
    package var revision: UInt64?

    package init(answer: Answer, answerID: String, phoneID: String = "", revision: UInt64? = nil) {
        self.answer = answer
        self.answerID = answerID
        self.phoneID = phoneID
        self.revision = revision
    }

    /// Decodes and validates a request body; the error names the member at fault.
    package static func decode(from json: some Collection<UInt8>) throws(TaskValidationError) -> AnswerRequest {
        let body = try JSONFields.parse(json)
        let names = Answer.allCases.map(\.rawValue).joined(separator: ", ")
        let answer: Answer
        switch body.values[AnswerKey.answer.stringValue] {
        case nil, .null?:
            throw TaskValidationError(field: AnswerKey.answer.stringValue, message: "is required (one of \(names))")
        case let .string(text)?:
            guard let known = Answer(rawValue: text) else {
                throw TaskValidationError(
                    field: AnswerKey.answer.stringValue,
                    message: "unknown answer \(TaskValidationError.quoted(text)); must be one of \(names)")
            }
            answer = known
        case let value?:
            throw TaskValidationError(
                field: AnswerKey.answer.stringValue, message: "must be one of \(names), got \(value.summary)")
        }
        guard let answerID = try identifier(body, .answerID, allowEmpty: false) else {
            throw TaskValidationError(
                field: AnswerKey.answerID.stringValue,
                message: "is required (an id the phone chooses for each press, so a retry is recorded once)")
        }
        let phoneID = try identifier(body, .phoneID, allowEmpty: true) ?? ""
        let revision: UInt64?
        switch body.values[RequestKey.revision.stringValue] {
        case nil, .null?:
            revision = nil
        case let value?:
            guard let number = value.unsignedInteger else {
                throw TaskValidationError(
                    field: RequestKey.revision.stringValue,
                    message: "must be the task's revision the person saw, a whole number from 0 to "
                        + "18446744073709551615, got \(value.summary)")
            }
            revision = number
        }
        return AnswerRequest(answer: answer, answerID: answerID, phoneID: phoneID, revision: revision)
    }

    /// The same rules as `decode`, for values built in code; the store calls it on every answer.
    package func validate() throws(TaskValidationError) {
        for (key, value, allowEmpty) in [(AnswerKey.answerID, answerID, false), (.phoneID, phoneID, true)]
        where !IdentifierRule.isValid(value, allowEmpty: allowEmpty) {
            throw TaskValidationError(
                field: key.stringValue,
                message: IdentifierRule.expectation(allowEmpty: allowEmpty)
                    + ", got \(TaskValidationError.quoted(value))")
        }
    }

    private static func identifier(
        _ body: JSONFields, _ key: AnswerKey, allowEmpty: Bool
    ) throws(TaskValidationError) -> String? {
        switch body.values[key.stringValue] {
        case nil, .null?:
            return nil
        case let .string(text)? where IdentifierRule.isValid(text, allowEmpty: allowEmpty):
            return text
        case let value?:
            throw TaskValidationError(
                field: key.stringValue,
                message: IdentifierRule.expectation(allowEmpty: allowEmpty) + ", got \(value.summary)")
        }
    }
}

/// What the idempotency fingerprint covers: the whole request (the answer, the phone, the revision shown).
extension AnswerRequest: Encodable {
    /// The body's members: `AnswerKey`'s, and `revision`, which only the request has.
    enum RequestKey: String, CodingKey {
        case answer
        case answerID = "answer_id"
        case phoneID = "phone_id"
        case revision
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RequestKey.self)
        try container.encode(answer, forKey: .answer)
        try container.encode(answerID, forKey: .answerID)
        try container.encode(phoneID, forKey: .phoneID)
        try container.encodeIfPresent(revision, forKey: .revision)
    }
}
