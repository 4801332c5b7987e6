import FoundationEssentials
import LiveActivity
import Logging
import WakeProtocol
import WireFormat

/// Agents' requests and the person's answers: one place where a change is made durable, committed and announced.
extension BoardSession {
    mutating func route(_ call: AgentCall) {
        var working = board
        var random = SplitMix64(seed: call.random)
        // The shell read the facts before the due work ahead of this request, which may have sent a Wake.
        var facts = call.facts
        facts.wake = wakeFacts
        let result = agentRouter.handle(call.request, state: &working, facts: facts, now: now, using: &random)
        working.store.anchorClocks(now: now, instant: instant)
        guard let change = result.change else {
            board = working  // answers encoded on the way stay cached
            if let wait = result.wait, call.mayHold {
                let id = nextWaitID
                nextWaitID += 1
                waits[id] = HeldWait(wait: wait, reply: call.reply)
                effects.append(.schedule(.wait(id), at: instant + wait.timeout))
            } else {
                effects.append(.respond(call.reply, result.response))
            }
            return
        }
        let what = "\(call.request.method) \(call.request.path) from \(call.request.peerDescription)"
        commit(working, change, what: what, reply: call.reply, then: [.respond(call.reply, result.response)])
    }

    /// The person's answer from the phone: recorded in the store like an agent's write (durable before it is
    /// acknowledged, then published and announced with a Wake), and logged with who answered.
    mutating func record(_ call: AnswerCall) {
        var working = board
        let outcome: AnswerChange
        do {
            outcome = try working.store.answer(id: call.id, call.answer, now: now)
        } catch {
            return effects.append(.respond(call.reply, PhoneRouter.answerRefusal(error)))
        }
        guard outcome.change.changed else {
            board = working  // the record of a repeated press, written with the next change
            return effects.append(.respond(call.reply, PhoneRouter.answerResponse(outcome)))
        }
        let answer = call.answer
        let phone = answer.phoneID.isEmpty ? "the phone" : "phone \(answer.phoneID)"
        let line =
            switch answer.answer {
            case .stop: "task \(call.id): stop requested from \(phone)"
            case .done, .refuse: "task \(call.id): answered \(answer.answer.rawValue) from \(phone)"
            case .dismiss: "task \(call.id): dismissed from \(phone)"
            }
        var fields: [LogField: String] = [.requestID: call.id, .peer: "\(call.request.peer)"]
        if let transition = outcome.change.transitions.last?.transition { fields[.transition] = transition.rawValue }
        commit(
            working, outcome.change,
            what: "answer \(answer.answer.rawValue) to task \(call.id) from \(call.request.peerDescription)",
            reply: call.reply,
            then: [
                .log(.notice, "\(line) (answer_id \(answer.answerID))", fields: fields),
                .respond(call.reply, PhoneRouter.answerResponse(outcome)),
            ])
    }

    /// Makes `working`, which holds `change`, the board: saved first when the change must be durable (and committed
    /// when the save's result says so), then published and announced, then `then`.
    mutating func commit(_ working: BoardState, _ change: TaskChange, what: String, reply: Reply, then: [Effect]) {
        guard change.durability == .immediate else {
            board = working
            scheduleLazyWrite()
            return committed(change, then: then)
        }
        save(
            working.store, for: .change(Commit(working: working, change: change, what: what, reply: reply, then: then)))
    }

    /// After the commit: published and announced (its Wake decided), the timers moved, then its log lines and `then`.
    mutating func committed(_ change: TaskChange, then: [Effect]) {
        jobs.insert(contentsOf: [.announce, .scheduleExpiry, .emit(transitionLogs(change) + then)], at: 0)
    }

    mutating func tasksSaved(_ outcome: SaveOutcome, for purpose: SavePurpose) {
        switch purpose {
        case let .change(commit): changeSaved(outcome, commit)
        case let .sweep(working, sweep): sweepSaved(outcome, working, sweep)
        case .lazy:
            switch outcome {
            case .saved:
                tasksDirty = false
                log(tasksWrites.succeeded(at: instant))
            case let .inPlace(error), let .failed(error):
                log(tasksWrites.failed("\(error) (written again in \(settings.lazyWriteDelay))", at: instant))
                scheduleLazyWrite()
            }
        case .flush:
            switch outcome {
            case .saved:
                tasksDirty = false
                log(tasksWrites.succeeded(at: instant))
            case let .inPlace(error), let .failed(error):
                effects.append(.log(.error, "could not write tasks: \(error)"))
            }
        }
    }

    private mutating func changeSaved(_ outcome: SaveOutcome, _ commit: Commit) {
        switch outcome {
        case .saved:
            log(tasksWrites.succeeded(at: instant))
            board = commit.working
            tasksDirty = false
            committed(commit.change, then: commit.then)
        case let .inPlace(error):
            // tasks.json holds the change already: every reader of the file, and a restart, may find it. Dropping it
            // would leave the board serving one thing while its file says another, so it stands, is served, and is
            // written again (directory sync included) by the lazy write; the agent hears exactly that, not "nothing
            // was changed".
            log(tasksWrites.failed("\(commit.what): \(error)", at: instant))
            board = commit.working
            scheduleLazyWrite()
            let id = commit.change.snapshot.requestID
            let unconfirmed = JSONError(
                status: 503, code: "storage_unconfirmed",
                message: "the change to \(id) was made and is served, but the board could not confirm that it "
                    + "is on disk (\(error)); a power loss before the board writes it again (within 1 s) may undo "
                    + "it. Do not repeat the request: read \(id) back to see it")
            committed(commit.change, then: [.respond(commit.reply, unconfirmed.response)])
        case let .failed(error):
            // Not durable, so not committed, not published, not acknowledged.
            log(tasksWrites.failed("\(commit.what): \(error)", at: instant))
            let failed = JSONError(
                status: 503, code: "storage_failed",
                message: "the board could not save this change (\(error)); nothing was changed")
            effects.append(.respond(commit.reply, failed.response))
        }
    }

    /// After a publication that changed the board: answers every held long-poll the board now decides.
    mutating func answerWaits() {
        for (id, held) in waits.sorted(by: { $0.key < $1.key }) {
            guard let answer = held.wait.answer(on: &board) else { continue }
            waits[id] = nil
            effects.append(.cancel(.wait(id)))
            effects.append(.respond(held.reply, answer))
        }
    }

    /// One info line for each transition a change recorded (a start, a handoff, needs_app, an end), with the task
    /// and the transition as fields: `journalctl -u aiden-board REQUEST_ID=…` finds a task's whole story. Emitted
    /// once the change is committed and published, so a line never reports a change that did not happen. The
    /// person's answers are logged by `record`, which knows who answered.
    func transitionLogs(_ change: TaskChange) -> [Effect] {
        change.transitions.compactMap { event in
            Self.transitionLine(event.transition, snapshot: change.snapshot).map {
                .log(.info, $0, fields: [.requestID: event.requestID, .transition: event.transition.rawValue])
            }
        }
    }

    /// `task chat_1 started (phone phone-1)`, `task chat_1 is waiting for the person (handoff)`, …; nil for the
    /// person's answers.
    package static func transitionLine(_ transition: Transition, snapshot: TaskSnapshot) -> String? {
        let task = "task \(snapshot.requestID)"
        switch transition {
        case .started:
            return "\(task) started (\(snapshot.phoneID.isEmpty ? "any phone" : "phone \(snapshot.phoneID)"))"
        case .handoff:
            return "\(task) is waiting for the person (handoff)"
        case .foregroundRecovery:
            return "\(task) needs the app in the foreground (needs_app)"
        case .completed, .failed, .canceled:
            let error = snapshot.lastError.isEmpty ? "" : ": \(snapshot.lastError)"
            return "\(task) ended \(snapshot.status.rawValue)\(error)"
        case .stopRequested, .answered, .dismissed:
            return nil
        }
    }
}
