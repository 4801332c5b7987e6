import WireFormat

/// The keys on the terminal card (docs/phone-client.md, "Keys on the card"), as a pure state machine: a key of an answer the card
/// offers now (`Answer.available(on:)`) asks its confirmation line ("Stop “Title”? y/N"); `y`
/// sends it, for the task the question named at the revision the card showed (even if the card moved on
/// meanwhile: the board then refuses it as stale if the task asked another question), any other key drops it. Keys of answers the card does not offer are ignored.
package struct AnswerPrompt: Sendable, Equatable {
    /// What the shell does with a key.
    package enum Output: Sendable, Equatable {
        case none
        /// Print this line above the card (the question, or that nothing was sent).
        case show(String)
        /// Post this answer (with a fresh `answer_id`), for the task's revision the question was asked on.
        case send(Answer, requestID: String, revision: UInt64?)
    }

    /// The question waiting for `y`: the answer, and the task as the card showed it when the key was pressed.
    package struct Question: Sendable, Equatable {
        package var answer: Answer
        package var requestID: String
        package var revision: UInt64?
    }

    package private(set) var question: Question?

    package init() {}

    package mutating func press(_ key: Character, card: Card?) -> Output {
        if let question {
            self.question = nil
            if key == "y" || key == "Y" {
                return .send(question.answer, requestID: question.requestID, revision: question.revision)
            }
            return .show("\(question.answer.verb): not sent.")
        }
        guard let card, let requestID = card.snapshot?.requestID,
            let answer = Answer.available(on: card).first(where: { $0.key == key })
        else { return .none }
        question = Question(answer: answer, requestID: requestID, revision: card.snapshot?.revision)
        return .show(answer.confirmation(title: card.snapshot?.taskTitle))
    }
}
