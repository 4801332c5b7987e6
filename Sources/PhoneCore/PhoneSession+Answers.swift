import WireFormat

/// The person's answers (docs/protocol.md §3.8): a key on the card or a notification's action becomes
/// `.personAnswered`, one `POST /api/live-activity/tasks/{id}/answer` goes out, and one `answer` event
/// says how the board took it. A request that got no answer at all is sent again, with the same
/// `answer_id`, up to `Settings.maximumAnswerAttempts` times: the board records an answer id once, so a
/// retry after a lost reply changes nothing. A recorded answer makes the client fetch (the card shows
/// it; the board's Wake would too), and keep fetching for a moment to see what the answer causes.
extension PhoneSession {
    /// An answer on its way: what was asked, how many times it was sent.
    struct PendingAnswer: Sendable, Equatable {
        var answer: Answer
        var requestID: String
        var title: String?
        var attempts: Int
    }

    mutating func personAnswered(
        _ answer: Answer, requestID: String, answerID: String, revision: UInt64?, at now: Duration,
        _ effects: inout [Effect]
    ) {
        guard pendingAnswers[answerID] == nil else { return }  // the same press twice: one request
        let title = (cardSnapshot(of: requestID) ?? seenTasks.snapshot(of: requestID))?.taskTitle
        pendingAnswers[answerID] = PendingAnswer(answer: answer, requestID: requestID, title: title, attempts: 1)
        effects.append(
            .log(.info, "answering \(answer.rawValue) to task \(BoardText.line(requestID, limit: 64) ?? "?")"))
        effects.append(
            .send(
                .answer(
                    requestID: requestID, answer, answerID: answerID, phoneID: settings.phoneID, revision: revision)))
    }

    mutating func answerAnswered(
        _ request: BoardRequest, _ response: BoardResponse, at now: Duration, _ effects: inout [Effect]
    ) {
        guard case let .answer(requestID, answer, answerID, _, _) = request, var pending = pendingAnswers[answerID]
        else {
            effects.append(.log(.debug, "ignored a late answer to \(request)"))
            return
        }
        if case .failed = response, pending.attempts < settings.maximumAnswerAttempts {
            pending.attempts += 1
            pendingAnswers[answerID] = pending
            effects.append(.send(request))
            return
        }
        pendingAnswers[answerID] = nil
        let outcome = AnswerOutcome.interpret(
            response, answer: answer, requestID: requestID, answerID: answerID, title: pending.title)
        // A dismissed card leaves every surface at once (`current` may show another task, and never this one again).
        if outcome.succeeded, answer == .dismiss { seenTasks.remove(requestID) }
        // Info, not a warning: the line is shown above the card (or as the `answer` event) already.
        effects.append(.log(.info, outcome.line))
        effects.append(.emit(.answered(outcome)))
        // Recorded, the card shows it; stale, the person answered a card that is gone: either way read the task
        // again, so every surface draws what the board holds now. A recorded stop, done or refuse is also followed
        // (`FetchScheduler.Event.answerRecorded`): what it causes comes in the coalescing window its Wake opened.
        guard outcome.succeeded || outcome.isStale, started else { return }
        let follows = outcome.succeeded && answer.isFollowed
        perform(scheduler.handle(follows ? .answerRecorded : .wake, at: now), &effects)
    }
}
