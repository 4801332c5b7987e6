import WireFormat

/// Bounds on agent-supplied values (docs/protocol.md §4.2); ids are bounded by `IdentifierRule`. Text lengths count
/// Unicode scalars ("UTF-8 characters"), so a bound also caps bytes at four per character; see
/// docs/task-store.md.
package enum TaskLimits {
    package static let maxTitleLength = 200
    package static let maxStepLength = 500
    /// `current_action`, `current_target`, `current_app`, `last_tool_name`.
    package static let maxShortTextLength = 200
    package static let maxErrorLength = 1000
    /// The whole snapshot as JSON (measured with slashes escaped, the longer of the two forms).
    package static let maxEncodedSnapshotBytes = WireLimits.maxSnapshotBytes
    /// `stale_after_seconds`: the default, and the range an agent may ask for (10 s to a day).
    package static let defaultStaleAfterSeconds = 300
    package static let staleAfterRange = 10...86_400
    /// `abandon_after_seconds`: the default, and the most an agent may ask for (a week); never less than
    /// the task's `stale_after_seconds`.
    package static let defaultAbandonAfterSeconds = 3600
    package static let maxAbandonAfterSeconds = 604_800
    /// `dismiss_after_seconds` at the end: 0 (gone at once) to a day; the board's retention still caps it.
    package static let dismissAfterRange = 0...86_400
    /// `Idempotency-Key`: visible ASCII (0x21...0x7E).
    package static let maxIdempotencyKeyLength = 255
    /// Update records a running task keeps (its newest); a retry comes right after the write it repeats.
    package static let updateRecordsPerTask = 4
    /// Answer records a task keeps (its newest): a phone retries a press right after it, and a person presses
    /// a few times at most.
    package static let answerRecordsPerTask = 8
}
