import FoundationEssentials
import LiveActivity
import Logging
import WireFormat

/// What time alone changes: retention ends, agents that went silent, and the lazy write.
extension BoardSession {
    /// Ended tasks leave the phone's card when their retention ends: the store changes, so phones get a Wake and
    /// fetch (and see `not_found`).
    mutating func pruneExpired() {
        guard let due = nextExpiry, due <= instant else { return }
        let retention = settings.retention
        let removed = board.store.prune(now: now, instant: instant, retention: retention)
        nextExpiry = board.store.nextExpiry(now: now, instant: instant, retention: retention)
        guard !removed.isEmpty else { return }
        effects.append(.log(.info, "retention ended for \(removed.joined(separator: ", "))"))
        scheduleLazyWrite()
        jobs.insert(.announce, at: 0)
    }

    /// Agents that went silent: their tasks are marked stale, then ended `failed` (a transition, so the phone
    /// alerts). An end must be durable before it is seen, like an agent's: when the write fails nothing is
    /// committed and the sweep runs again `staleRetryDelay` later.
    mutating func sweepStale() {
        guard let due = board.store.nextStaleDeadline(now: now, instant: instant), due <= instant else { return }
        var working = board
        let sweep = working.store.sweepStale(now: now, instant: instant)
        working.store.anchorClocks(now: now, instant: instant)
        guard !sweep.isEmpty else { return }
        guard sweep.durability == .immediate else {
            board = working
            scheduleLazyWrite()
            return swept(sweep)
        }
        save(working.store, for: .sweep(working, sweep))
    }

    mutating func sweepSaved(_ outcome: SaveOutcome, _ working: BoardState, _ sweep: TaskStore.StaleSweep) {
        switch outcome {
        case .saved:
            log(tasksWrites.succeeded(at: instant))
            board = working
            tasksDirty = false
        case let .inPlace(error):
            // The file holds the ends already: they stand, and the lazy write confirms them.
            log(tasksWrites.failed("ending abandoned tasks: \(error)", at: instant))
            board = working
            scheduleLazyWrite()
        case let .failed(error):
            // Not committed; tried again later. A failure that stays is logged once a minute.
            log(tasksWrites.failed("ending abandoned tasks: \(error)", at: instant))
            staleRetryDue = instant + settings.staleRetryDelay
            return
        }
        swept(sweep)
    }

    private mutating func swept(_ sweep: TaskStore.StaleSweep) {
        staleRetryDue = nil
        for change in sweep.stale {
            let task = change.snapshot
            effects.append(
                .log(
                    .info,
                    "task \(task.requestID): no news from its agent for \(task.staleAfterSeconds) s, shown as stale",
                    fields: [.requestID: task.requestID]))
        }
        for change in sweep.abandoned {
            let task = change.snapshot
            effects.append(
                .log(
                    .notice,
                    "task \(task.requestID) ended failed: no news from its agent for \(task.abandonAfterSeconds) s "
                        + "(\(TaskStore.abandonedError))",
                    fields: [.requestID: task.requestID, .transition: Transition.failed.rawValue]))
        }
        jobs.insert(.announce, at: 0)
    }

    /// Arms the expiry timer for the earlier of the next stale deadline (or the sweep's retry) and the next
    /// retention end, unless it is armed for that time or earlier already.
    mutating func scheduleExpiry() {
        let stale = staleRetryDue ?? board.store.nextStaleDeadline(now: now, instant: instant)
        let ended = board.store.nextExpiry(now: now, instant: instant, retention: settings.retention)
        nextExpiry = ended
        guard let expiry = [stale, ended].compactMap({ $0 }).min() else { return }
        if let scheduled = expiryScheduledFor, scheduled <= expiry { return }
        expiryScheduledFor = expiry
        effects.append(.schedule(.expiry, at: max(expiry, instant)))
    }

    /// Marks the board ahead of `tasks.json` and arms the lazy write, unless it is armed.
    mutating func scheduleLazyWrite() {
        tasksDirty = true
        guard !lazyWriteScheduled else { return }
        lazyWriteScheduled = true
        effects.append(.schedule(.lazyWrite, at: instant + settings.lazyWriteDelay))
    }
}
