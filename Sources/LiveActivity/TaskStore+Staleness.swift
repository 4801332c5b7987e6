import FoundationEssentials

/// A task can't be left running forever: an agent that crashed or was killed stops sending news, its task is
/// shown as stale after `stale_after_seconds` and ended `failed` by the board after `abandon_after_seconds`.
/// Time is passed in; silence is measured on the monotonic clock (`instant`, see `anchorClocks`), and the
/// board's session calls `sweepStale(now:instant:)` at `nextStaleDeadline`.
extension TaskStore {
    /// What `last_error` says when the board ends a task whose agent went silent.
    package static let abandonedError = "the agent stopped reporting"

    /// What one sweep did: tasks newly shown as stale and tasks ended as abandoned, each as a change.
    package struct StaleSweep: Sendable, Hashable {
        package var stale: [TaskChange] = []
        package var abandoned: [TaskChange] = []

        package var isEmpty: Bool { stale.isEmpty && abandoned.isEmpty }

        /// `.immediate` when a task ended (a terminal transition must be durable before it is seen), else
        /// `.lazy` (the stale mark is recomputed from the last news after a crash anyway).
        package var durability: Durability {
            if !abandoned.isEmpty { return .immediate }
            return stale.isEmpty ? .unchanged : .lazy
        }
    }

    /// News from the agent without a change (`POST /v1/tasks/{id}/heartbeat`): the task is fresh again. A
    /// stale task loses its mark (a change: new revision, a Wake); a fresh one only has its news time moved
    /// (`.unchanged`: no revision, no Wake, written with the next write).
    package mutating func heartbeat(id: String, now: Date) throws(TaskStoreError) -> TaskChange {
        try update(id: id, patch: TaskPatch(), now: now)
    }

    /// Marks tasks without news for `stale_after_seconds` stale (`stale_since` = last news + that) and ends
    /// `failed` those without news for `abandon_after_seconds`, with `last_error` `abandonedError`: a
    /// `failed` transition that alerts like any failure. Order: oldest revision first, so ids follow.
    package mutating func sweepStale(now: Date, instant: Duration? = nil) -> StaleSweep {
        var sweep = StaleSweep()
        let time = Timestamp.normalized(now)
        let active = snapshots.values.filter(\.status.isActive).sorted { $0.revision < $1.revision }
        for current in active {
            guard let news = lastNews[current.requestID] else { continue }
            let silent = elapsed(since: news, of: current.requestID, now: time, instant: instant)
            if silent >= Double(current.abandonAfterSeconds) {
                var ended = current
                ended.status = .failed
                ended.lastError = Self.abandonedError
                ended.staleSince = current.staleSince ?? news.addingTimeInterval(Double(current.staleAfterSeconds))
                ended.updatedAt = time
                ended.endedAt = time
                ended.answer = nil
                let events = commit(ended, replacing: current, now: time)
                sweep.abandoned.append(
                    TaskChange(
                        snapshot: snapshots[current.requestID] ?? ended, durability: .immediate, transitions: events))
            } else if current.staleSince == nil, silent >= Double(current.staleAfterSeconds) {
                var marked = current
                marked.staleSince = news.addingTimeInterval(Double(current.staleAfterSeconds))
                let events = commit(marked, replacing: current, now: time)
                sweep.stale.append(
                    TaskChange(snapshot: snapshots[current.requestID] ?? marked, durability: .lazy, transitions: events)
                )
            }
        }
        checkInvariants()
        return sweep
    }

    /// When `sweepStale` has something to do next, on the monotonic clock (nil: no active task), so the shell
    /// arms one timer.
    package func nextStaleDeadline(now: Date, instant: Duration) -> Duration? {
        snapshots.values.compactMap { snapshot -> Duration? in
            guard snapshot.status.isActive, let news = lastNews[snapshot.requestID] else { return nil }
            let limit = snapshot.staleSince == nil ? snapshot.staleAfterSeconds : snapshot.abandonAfterSeconds
            return deadline(after: Double(limit), from: news, of: snapshot.requestID, now: now, instant: instant)
        }.min()
    }

    /// When task `id` last had news from its agent (nil: unknown, or ended).
    package func lastNews(of id: String) -> Date? {
        lastNews[id]
    }
}
