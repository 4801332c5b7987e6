import FoundationEssentials
import LiveActivity
import WakeProtocol
import WireFormat

/// The largest store a board can hold: `TaskStore.defaultCapacity` tasks, each exactly at the snapshot limit
/// (`WireLimits.maxSnapshotBytes` of JSON, with 128-character ids, a 200-character title and a 500-character
/// step of 4-byte characters, `last_error` filling the rest). Its task list is the largest answer on the agent
/// socket, which aidenctl must still read.
package enum FullTaskStore {
    package static func make(now: Date) throws -> TaskStore {
        var store = TaskStore(generation: "4660-0badc0de")
        var ids = SplitMix64(seed: 1)
        for index in 0..<TaskStore.defaultCapacity {
            let number = String(index)
            let requestID = "chat_" + String(repeating: "0", count: 123 - number.count) + number
            var draft = TaskDraft(
                taskTitle: String(repeating: "🙂", count: 200), requestID: requestID,
                phoneID: "phone_" + String(repeating: "p", count: 122), currentStep: String(repeating: "🙂", count: 500),
                lastError: "")
            // Measured on a copy, at the same revision and time as the real start: the padding is exact.
            var probe = store
            let base = try probe.start(draft, idempotencyKey: nil, now: now, using: &ids).snapshot.encodedByteCount
            draft.lastError = String(repeating: "e", count: WireLimits.maxSnapshotBytes - base)
            let change = try store.start(draft, idempotencyKey: nil, now: now, using: &ids)
            guard change.snapshot.encodedByteCount == WireLimits.maxSnapshotBytes else {
                throw FullTaskStoreError(index: index, bytes: change.snapshot.encodedByteCount)
            }
        }
        return store
    }
}

/// A task of the full store did not come out at the limit (the snapshot's encoding changed shape).
package struct FullTaskStoreError: Error, CustomStringConvertible {
    package let index: Int
    package let bytes: Int
    package var description: String { "task \(index) is \(bytes) bytes, not \(WireLimits.maxSnapshotBytes)" }
}
