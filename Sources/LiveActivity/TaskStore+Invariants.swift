/// What must hold after every change (the shape of swift-collections' `_checkInvariants`): asserted after each
/// mutation in debug builds, and checked when a store is loaded from disk.
extension TaskStore {
    /// Human-readable descriptions of broken invariants; empty when the store is sound.
    func consistencyProblems() -> [String] {
        var problems: [String] = []
        if snapshots.count > capacity {
            problems.append("\(snapshots.count) tasks exceed the capacity \(capacity)")
        }
        var seenRevisions: Set<UInt64> = []
        for (id, snapshot) in snapshots {
            if id != snapshot.requestID {
                problems.append("task \(snapshot.requestID) is filed under \(id)")
            }
            if snapshot.revision == 0 || snapshot.revision > revision {
                problems.append("task \(id) has revision \(snapshot.revision), store revision is \(revision)")
            }
            if !seenRevisions.insert(snapshot.revision).inserted {
                problems.append("revision \(snapshot.revision) belongs to two tasks")
            }
            if snapshot.status.isTerminal != (snapshot.endedAt != nil) {
                let endedAt = snapshot.endedAt.map(Timestamp.format) ?? "null"
                problems.append("task \(id) is \(snapshot.status.rawValue) but ended_at is \(endedAt)")
            }
            if let answer = snapshot.answer, snapshot.status.isTerminal || !answer.answer.isKeptOnTask {
                problems.append(
                    "task \(id) is \(snapshot.status.rawValue) and keeps the answer \(answer.answer.rawValue)")
            }
            if snapshot.dismissedAt != nil, snapshot.status.isActive {
                problems.append("task \(id) is \(snapshot.status.rawValue) but has dismissed_at")
            }
        }
        for (id, snapshot) in snapshots where snapshot.status.isActive != (lastNews[id] != nil) {
            let news = lastNews[id].map(Timestamp.format) ?? "unknown"
            problems.append("task \(id) is \(snapshot.status.rawValue) but its last news is \(news)")
        }
        for id in lastNews.keys where snapshots[id] == nil {
            problems.append("last news recorded for missing task \(id)")
        }
        var recordCounts: [String: [IdempotencyRecord.Operation: Int]] = [:]
        for (key, record) in idempotencyRecords {
            recordCounts[record.requestID, default: [:]][record.operation, default: 0] += 1
            if key != record.key {
                problems.append("idempotency record \(record.key) is filed under \(key)")
            }
            guard let task = snapshots[record.requestID] else {
                problems.append("idempotency key \(key) points to missing task \(record.requestID)")
                continue
            }
            if record.operation == .update, task.status.isTerminal {
                problems.append("ended task \(record.requestID) keeps the update record \(key)")
            }
            if (record.operation == .answer) != (record.answer != nil) {
                problems.append("idempotency record \(key) (\(record.operation.rawValue)) and its answer do not match")
            }
        }
        for (id, counts) in recordCounts {
            if counts[.start, default: 0] > 1 {
                problems.append("task \(id) has two idempotency records for its start")
            }
            if counts[.end, default: 0] > 1 { problems.append("task \(id) has two idempotency records for its end") }
            if counts[.update, default: 0] > TaskLimits.updateRecordsPerTask {
                problems.append("task \(id) keeps \(counts[.update, default: 0]) update records")
            }
            if counts[.answer, default: 0] > TaskLimits.answerRecordsPerTask {
                problems.append("task \(id) keeps \(counts[.answer, default: 0]) answer records")
            }
        }
        return problems + transitions.consistencyProblems()
    }

    #if DEBUG
    func checkInvariants() {
        let problems = consistencyProblems()
        assert(problems.isEmpty, "TaskStore invariants broken: \(problems.joined(separator: "; "))")
    }
    #else
    @inline(__always)
    func checkInvariants() {}
    #endif
}
