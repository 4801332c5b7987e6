import FoundationEssentials
import Testing
import WakeProtocol
import WireFormat

@testable import LiveActivity

/// Always the same number: forces id clashes.
struct ConstantGenerator: RandomNumberGenerator {
    var value: UInt64

    mutating func next() -> UInt64 { value }
}

/// 2026-06-12T07:00:00Z, the day of the snapshot example in docs/protocol.md §4.1.
let t0 = Date(timeIntervalSince1970: 1_781_247_600)

/// `t0` plus `seconds`: timeline tables read as offsets.
func at(_ seconds: Double) -> Date {
    t0.addingTimeInterval(seconds)
}

let tenMinutes = Duration.seconds(600)

/// The error a store call raised, or nil if it succeeded. (Closures infer untyped `throws`, so the
/// type is checked here: any other error is a test failure.)
func storeError(_ body: () throws -> Void) -> TaskStoreError? {
    do {
        try body()
        return nil
    } catch let error as TaskStoreError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// The error a decode or validation raised, or nil if it succeeded.
func validationError(_ body: () throws -> Void) -> TaskValidationError? {
    do {
        try body()
        return nil
    } catch let error as TaskValidationError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

extension TaskStore {
    /// Starts a task with a fixed id, for timelines.
    @discardableResult
    mutating func startTask(
        _ id: String, phone: String = "", title: String = "Task", status: TaskStatus? = nil, at time: Date
    ) throws(TaskStoreError) -> TaskSnapshot {
        var generator = SplitMix64(seed: 1)
        let draft = TaskDraft(taskTitle: title, requestID: id, phoneID: phone, status: status)
        return try start(draft, idempotencyKey: nil, now: time, using: &generator).snapshot
    }
}

/// A string of `count` copies of `character`.
func text(_ character: Character, _ count: Int) -> String {
    String(repeating: String(character), count: count)
}

extension TaskStore {
    /// `nextStaleDeadline` as a date, for a store no shell anchored, on a monotonic clock that reads zero at `t0`.
    func nextStaleDeadline() -> Date? {
        nextStaleDeadline(now: t0, instant: .zero).map(date(ofInstant:))
    }

    /// `nextExpiry` as a date, likewise.
    func nextExpiry(retention: Duration) -> Date? {
        nextExpiry(now: t0, instant: .zero, retention: retention).map(date(ofInstant:))
    }
}

/// The date of a monotonic instant on a clock that reads zero at `t0` (whole milliseconds, as stamped).
func date(ofInstant instant: Duration) -> Date {
    let (seconds, attoseconds) = instant.components
    return at(Double(seconds) + Double(attoseconds / 1_000_000_000_000_000) / 1000)
}

/// `seconds` on the monotonic clock of a timeline.
func instant(_ seconds: Double) -> Duration {
    .milliseconds(Int64((seconds * 1000).rounded()))
}
