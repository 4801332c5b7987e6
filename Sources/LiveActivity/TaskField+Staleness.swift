/// The staleness limits an agent may give (start, update): each within its range, and a task is never
/// abandoned before it is shown as stale.
extension TaskField {
    static let staleAfterRange = TaskLimits.staleAfterRange
    static let abandonAfterRange = TaskLimits.staleAfterRange.lowerBound...TaskLimits.maxAbandonAfterSeconds

    func checkSeconds(_ seconds: Int, in range: ClosedRange<Int>) throws(TaskValidationError) {
        guard range.contains(seconds) else {
            throw error(
                "must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound), got \(seconds)")
        }
    }

    /// The limits a snapshot would end up with, checked together.
    static func checkStaleness(staleAfter: Int, abandonAfter: Int) throws(TaskValidationError) {
        try TaskField.staleAfterSeconds.checkSeconds(staleAfter, in: staleAfterRange)
        try TaskField.abandonAfterSeconds.checkSeconds(abandonAfter, in: abandonAfterRange)
        guard abandonAfter >= staleAfter else {
            throw TaskField.abandonAfterSeconds.error(
                "must not be less than stale_after_seconds (\(staleAfter)), got \(abandonAfter)")
        }
    }
}
