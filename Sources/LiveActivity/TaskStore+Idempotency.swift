extension TaskStore {
    /// The task a keyed write already made, when `key` was used for this same request (same operation, task
    /// and body): the caller answers it as it now is, without writing again. Nil without a key or for a key
    /// never used; a conflict for a key used for any other request. `requestID` is nil for a start, whose
    /// task the record names.
    func replay(
        _ key: String?, _ operation: IdempotencyRecord.Operation, requestID: String?, fingerprint: UInt64
    ) throws(TaskStoreError) -> TaskSnapshot? {
        guard let key, let record = idempotencyRecords[key] else { return nil }
        guard record.matches(operation, requestID: requestID, fingerprint: fingerprint),
            let existing = snapshots[record.requestID]
        else {
            throw record.conflict(reusedFor: operation)
        }
        return existing
    }

    /// Files the record of a write that succeeded under `key` (for an answer, with the answer it was answered
    /// with). A task keeps only its newest `TaskLimits.updateRecordsPerTask` update records and
    /// `TaskLimits.answerRecordsPerTask` answer records.
    mutating func record(
        _ key: String?, _ operation: IdempotencyRecord.Operation, requestID: String, fingerprint: UInt64,
        answer: TaskAnswer? = nil
    ) {
        guard let key else { return }
        let sequence = (idempotencyRecords.values.map(\.sequence).max() ?? 0) + 1
        idempotencyRecords[key] = IdempotencyRecord(
            key: key, operation: operation, requestID: requestID, fingerprint: fingerprint, sequence: sequence,
            answer: answer)
        let kept: Int
        switch operation {
        case .update: kept = TaskLimits.updateRecordsPerTask
        case .answer: kept = TaskLimits.answerRecordsPerTask
        case .start, .end: return
        }
        let same = idempotencyRecords.values.filter { $0.requestID == requestID && $0.operation == operation }
        for stale in same.sorted(by: { $0.sequence > $1.sequence }).dropFirst(kept) {
            idempotencyRecords[stale.key] = nil
        }
    }

    /// Drops a task's update records when it ends: no update of an ended task can succeed, so none is replayed.
    mutating func forgetUpdateRecords(of requestID: String) {
        idempotencyRecords = idempotencyRecords.filter {
            $0.value.requestID != requestID || $0.value.operation != .update
        }
    }
}
