import FoundationEssentials
import Logging
import WakeProtocol

/// The Wake side: each committed change feeds the coalescer (at most one Wake a window, the last change always
/// followed by one), and a Wake goes out only after the publication it announces and after its sequence is below a
/// durable mark, so a restart never reuses one.
extension BoardSession {
    /// A change was committed: tell the coalescer, and publish the board with what it decided.
    mutating func announce() {
        let action = coalescer.changed(at: instant)
        // Counted here, per change: a deadline that comes early (armed again) or finds its change sent already
        // (`.none`) is no change of its own.
        if action != .sendWake { wakeFacts.coalescedChanges += 1 }
        perform(action, boardChanged: true)
    }

    /// Does what the coalescer said; `boardChanged`: the publication includes the board (a change), not only the
    /// Wake facts (a deadline).
    mutating func perform(_ action: WakeCoalescer.Action, boardChanged: Bool) {
        switch action {
        case .sendWake:
            goOut(boardChanged: boardChanged)
        case let .scheduleDeadline(deadline):
            effects.append(.schedule(.wakeDeadline, at: deadline))
            publish(boardChanged: boardChanged)
        case .none:
            publish(boardChanged: boardChanged)
        }
    }

    /// Takes the next sequence; when it passes the durable mark, asks for the next mark to be saved first.
    private mutating func goOut(boardChanged: Bool) {
        let issue: SequenceReservation.Issue
        do {
            issue = try reservation.next()
        } catch {
            effects.append(.log(.error, "wake sequence exhausted in epoch \(wakeState.epoch): \(error)"))
            return publish(boardChanged: boardChanged)
        }
        guard let mark = issue.mustPersistFirst else {
            return send(sequence: issue.sequence, boardChanged: boardChanged)
        }
        let state = WakeState(epoch: wakeState.epoch, sequenceHighWater: mark)
        effects.append(.saveWakeMark(state))
        awaiting = .wakeMark(state, sequence: issue.sequence, boardChanged: boardChanged)
    }

    mutating func wakeMarkSaved(_ outcome: SaveOutcome, _ state: WakeState, sequence: UInt64, boardChanged: Bool) {
        switch outcome {
        case .saved:
            log(sequenceMarks.succeeded(at: instant))
            wakeState = state
            reservation.confirmPersisted(highWater: state.sequenceHighWater)
            send(sequence: sequence, boardChanged: boardChanged)
        case let .inPlace(error), let .failed(error):
            // A Wake must never carry a sequence a restart could reuse: skip it, count it. Even a mark in place but
            // not known to be durable is not confirmed: the next Wake writes one again.
            wakeFacts.sendFailures += 1
            log(sequenceMarks.failed("wake \(sequence) not sent: \(error)", at: instant))
            publish(boardChanged: boardChanged)
        }
    }

    /// Publishes, counting the Wake as sent, then sends it: readers that fetch on it find what it announces.
    private mutating func send(sequence: UInt64, boardChanged: Bool) {
        let reason = nextReason
        nextReason = .liveActivity
        let envelope = WakeEnvelope(reason: reason, epoch: wakeState.epoch, sequence: sequence)
        wakeFacts.lastSequence = sequence
        wakeFacts.lastReason = reason.name
        wakeFacts.lastAt = now
        wakeFacts.sent += 1
        // The window runs from here, after the durable mark (an fsync, now and then), not from the decision.
        coalescer.wentOut(at: instant)
        publish(boardChanged: boardChanged)
        effects.append(.sendWake(envelope))
        awaiting = .delivery(envelope)
    }

    /// The transport's word on a Wake. One it refused moves from `sent` to `sendFailures`, published again.
    mutating func wakeDelivered(_ envelope: WakeEnvelope, failure: String?) {
        guard let failure else {
            // Debug: at most one a coalescing window (750 ms) while an agent reports progress, too many for info;
            // the task lines carry what an operator follows, WAKE_SEQ links a phone's received Wake to this one.
            effects.append(.log(.debug, "wake \(envelope)", fields: [.wakeSequence: "\(envelope.sequence)"]))
            return log(deliveries.succeeded(at: instant))
        }
        wakeFacts.sent -= 1
        wakeFacts.sendFailures += 1
        log(deliveries.failed("wake \(envelope.sequence) not delivered: \(failure)", at: instant))
        publish(boardChanged: false)
    }

    /// What readers see from now: the board, when it changed, and the Wake facts; then the long-polls it decides.
    private mutating func publish(boardChanged: Bool) {
        guard boardChanged else { return effects.append(.publish(nil, wakeFacts)) }
        effects.append(.publish(board.published(now: now, instant: instant, retention: settings.retention), wakeFacts))
        answerWaits()
    }
}
