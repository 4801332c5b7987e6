import WireFormat

/// How the board took one of the person's answers, in words for the line above the card, the `answer`
/// event and `aiden-phone stop|done|refuse|dismiss`.
package struct AnswerOutcome: Sendable, Equatable {
    package enum Result: Sendable, Equatable {
        /// `200`: the board recorded it (or had already: the same `answer_id`, a second stop).
        case recorded(AnswerReceipt)
        /// The board refused it: its status, its error code (`not_stoppable`, `task_ended`, `not_waiting`,
        /// `not_ended`, `not_found`, …) and message, or no answer at all.
        case refused(BoardProblem, code: String?)
    }

    package var answer: Answer
    package var requestID: String
    package var answerID: String
    /// The task's title when the phone knew it (cleaned and bounded when shown).
    package var title: String?
    package var result: Result

    package init(answer: Answer, requestID: String, answerID: String, title: String?, result: Result) {
        self.answer = answer
        self.requestID = requestID
        self.answerID = answerID
        self.title = title
        self.result = result
    }

    /// Reads the board's answer to `POST /api/live-activity/tasks/{id}/answer`.
    package static func interpret(
        _ response: BoardResponse, answer: Answer, requestID: String, answerID: String, title: String?
    ) -> AnswerOutcome {
        let result: Result
        switch response {
        case let .failed(detail):
            result = .refused(.unreachable(detail: detail), code: nil)
        case let .answered(200, _, body, _):
            do throws(BoardAnswerError) {
                result = .recorded(try BoardAnswer.answered(from: body))
            } catch {
                result = .refused(.malformed(error), code: nil)
            }
        case let .answered(403, _, body, _):
            result = .refused(
                .forbidden(message: BoardAnswer.errorMessage(in: body)), code: BoardAnswer.errorCode(in: body))
        case let .answered(status, _, body, _):
            result = .refused(
                .httpStatus(status, message: BoardAnswer.errorMessage(in: body)), code: BoardAnswer.errorCode(in: body))
        }
        return AnswerOutcome(answer: answer, requestID: requestID, answerID: answerID, title: title, result: result)
    }

    package var succeeded: Bool {
        if case .recorded = result { true } else { false }
    }

    /// The board refused it as `stale_revision`: the card it was given on is not the task as it is now.
    package var isStale: Bool {
        if case .refused(_, "stale_revision"?) = result { true } else { false }
    }

    /// One line: `Stop requested for “Open Settings” (chat_1)`, or
    /// `Could not stop “Open Settings” (chat_1): board answered HTTP 409: not_stoppable: …`.
    package var line: String {
        let name = BoardText.line(title ?? receiptTitle, limit: Alert.titleLimit).map { "“\($0)”" } ?? "task"
        let id = BoardText.line(requestID, limit: 64) ?? "?"
        switch result {
        case .recorded:
            let done: String =
                switch answer {
                case .stop: "Stop requested for"
                case .done: "Answered done for"
                case .refuse: "Refused"
                case .dismiss: "Dismissed"
                }
            return BoardText.clean("\(done) \(name) (\(id))")
        case let .refused(problem, code):
            let words: String =
                switch problem {
                case .unreachable, .malformed: problem.description
                case .forbidden, .httpStatus:
                    "board answered HTTP \(Self.status(problem))"
                        + (code.map { ": \($0)" } ?? "") + (problem.boardMessage.map { ": \($0)" } ?? "")
                }
            let verb = answer == .done ? "answer done for" : answer.rawValue
            if isStale {
                return BoardText.clean(
                    "\(answer.verb) not taken for \(name) (\(id)): the task changed since it was shown; "
                        + "look at the card again")
            }
            return BoardText.clean("Could not \(verb) \(name) (\(id)): \(words)")
        }
    }

    private var receiptTitle: String? {
        if case let .recorded(receipt) = result { receipt.task?.taskTitle } else { nil }
    }

    private static func status(_ problem: BoardProblem) -> Int {
        switch problem {
        case .forbidden: 403
        case let .httpStatus(status, _): status
        case .unreachable, .malformed: 0
        }
    }
}
