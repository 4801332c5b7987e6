import FoundationEssentials
import WireFormat

/// What an answer did to the store: the answer the phone is told was recorded (its own, or the stop or
/// dismissal already recorded) and the change to the task. (How the phone reads the board's reply is
/// PhoneCore's `AnswerOutcome`.)
package struct AnswerChange: Sendable, Hashable {
    package var answer: TaskAnswer
    package var change: TaskChange

    package init(answer: TaskAnswer, change: TaskChange) {
        self.answer = answer
        self.change = change
    }
}

extension TaskStore {
    /// Records the person's answer to task `id` from the phone
    /// (`POST /api/live-activity/tasks/{request_id}/answer`); `answered_at` is `now`.
    ///
    /// - `stop` needs an active task with `can_stop` (else `not_stoppable`, or `task_ended`); it becomes the
    ///   task's `answer` and records `stop_requested`. A stop while one is recorded records nothing and answers
    ///   with the recorded one.
    /// - `done` and `refuse` need a task waiting for the person (`isWaitingForPerson`, else `not_waiting`);
    ///   they become the task's `answer` (unless a stop is recorded, which stays) and record `answered`; a
    ///   `needs_app` task goes back to `running`.
    /// - `dismiss` needs an ended task (else `not_ended`); it sets `dismissed_at` and records `dismissed`. A
    ///   task dismissed already records nothing and answers with its `dismissed_at`.
    ///
    /// A task addressed to another phone than `request.phoneID` is `.notFound`, as one that does not exist.
    /// The same `answer_id` again (a retry) returns what the first press returned, as the task now is, and
    /// changes nothing; the same id for another answer or task is a conflict. `updated_at` and the agent's
    /// news time stay as they were: the answer is the person's, not news from the agent.
    package mutating func answer(
        id: String, _ request: AnswerRequest, now: Date
    ) throws(TaskStoreError) -> AnswerChange {
        do {
            try request.validate()
        } catch {
            throw .invalid(error)
        }
        let key = IdempotencyRecord.answerKey(request.answerID)
        let fingerprint = IdempotencyRecord.fingerprint(of: request)
        if let record = idempotencyRecords[key] {
            guard record.matches(.answer, requestID: id, fingerprint: fingerprint), let answered = record.answer,
                let existing = snapshots[id]
            else { throw record.conflict(reusedFor: .answer) }
            return AnswerChange(answer: answered, change: TaskChange(snapshot: existing, durability: .unchanged))
        }
        guard let current = snapshots[id], current.isVisible(toPhone: request.phoneID) else {
            throw .notFound(id: id)
        }
        if let shown = request.revision, isStale(current, shown: shown, for: request.answer) {
            throw .answerRefused(.staleRevision(id: id, shown: shown, current: current.revision))
        }
        let time = Timestamp.normalized(now)
        let fresh = TaskAnswer(
            answer: request.answer, answerID: request.answerID, phoneID: request.phoneID, answeredAt: time)
        var candidate = current
        var recorded = fresh
        switch request.answer {
        case .stop:
            guard current.status.isActive else { throw .answerRefused(.taskEnded(id: id, status: current.status)) }
            guard current.canStop else { throw .answerRefused(.notStoppable(id: id)) }
            if let stop = current.answer, stop.answer == .stop {
                recorded = stop
            } else {
                candidate.answer = fresh
            }
        case .done, .refuse:
            guard current.isWaitingForPerson else {
                throw .answerRefused(.notWaiting(id: id, answer: request.answer))
            }
            if current.answer?.answer != .stop { candidate.answer = fresh }
            if current.status == .needsApp { candidate.status = .running }
        case .dismiss:
            guard current.status.isTerminal else { throw .answerRefused(.notEnded(id: id)) }
            if let dismissedAt = current.dismissedAt {
                recorded.answeredAt = dismissedAt
            } else {
                candidate.dismissedAt = time
            }
        }
        guard recorded == fresh else {
            // Already recorded: nothing new, but a retry of this press is answered alike.
            record(key, .answer, requestID: id, fingerprint: fingerprint, answer: recorded)
            checkInvariants()
            return AnswerChange(answer: recorded, change: TaskChange(snapshot: current, durability: .unchanged))
        }
        candidate.revision = revision + 1
        try Self.checkEncodedSize(candidate)

        var events = commit(candidate, replacing: current, now: time)
        events.append(
            transitions.append(
                requestID: id, transition: request.answer.transition, at: time, phoneID: current.phoneID,
                answer: request.answer.transition == .answered ? request.answer : nil,
                revision: snapshots[id]?.revision))
        record(key, .answer, requestID: id, fingerprint: fingerprint, answer: recorded)
        checkInvariants()
        return AnswerChange(
            answer: recorded,
            change: TaskChange(snapshot: snapshots[id] ?? candidate, durability: .immediate, transitions: events))
    }
}

extension TaskStore {
    /// The transitions after which an answer shown earlier no longer answers the task as it is: a new start
    /// under the same id for every answer (another task), and for `done` and `refuse` a new wait as well (the
    /// person saw another question).
    static func invalidating(_ answer: Answer) -> Set<Transition> {
        switch answer {
        case .stop, .dismiss: [.started]
        case .done, .refuse: [.started, .handoff, .foregroundRecovery]
        }
    }

    /// Whether an answer the person gave on the card of revision `shown` is stale for `task` now
    /// (docs/protocol.md §3.8): a revision the task never had (ahead of it), or a transition of
    /// `invalidating(answer)` recorded at a later revision. Progress, steps and tools in between leave it
    /// fresh. When the ring cannot tell (events evicted that may be later than `shown`, or kept without a
    /// revision by an older board), only the very revision shown is fresh.
    func isStale(_ task: TaskSnapshot, shown: UInt64, for answer: Answer) -> Bool {
        guard shown <= task.revision else { return true }
        guard shown < task.revision else { return false }
        let relevant = Self.invalidating(answer)
        let ownEvents = transitions.events.filter { $0.requestID == task.requestID }
        if ownEvents.contains(where: { relevant.contains($0.transition) && $0.revision.map { $0 > shown } ?? true }) {
            return true
        }
        // Events evicted from the ring may hold a later transition: only an unbroken ring back to `shown` says not.
        let evicted = transitions.events.first.map { $0.id > 1 } ?? (transitions.lastID > 0)
        guard evicted else { return false }
        let oldestKept = transitions.events.first?.revision ?? UInt64.max
        return oldestKept > shown
    }
}
