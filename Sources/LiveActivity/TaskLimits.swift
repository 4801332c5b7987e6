/// Bounds on agent-supplied values (CONTRACT §4). Text lengths count Unicode scalars ("UTF-8
/// characters"), so a bound also caps bytes at four per character; see docs/task-store.md.
package enum TaskLimits {
    /// `request_id` and `phone_id`: characters from `A-Z a-z 0-9 . _ : -`.
    package static let maxIdentifierLength = 128
    package static let maxTitleLength = 200
    package static let maxStepLength = 500
    /// `current_action`, `current_target`, `current_app`, `last_tool_name`.
    package static let maxShortTextLength = 200
    package static let maxErrorLength = 1000
    /// The whole snapshot as JSON (measured with slashes escaped, the longer of the two forms).
    package static let maxEncodedSnapshotBytes = 4096
    /// `Idempotency-Key`: visible ASCII (0x21...0x7E).
    package static let maxIdempotencyKeyLength = 255
    /// Update records a running task keeps (its newest); a retry comes right after the write it repeats.
    package static let updateRecordsPerTask = 4
}
