/// How often `aidenctl task run` tells the board its command is still running: a third of the task's
/// `stale_after_seconds`, between 5 s and a minute, so a quiet command (a long build) never shows as stale
/// and is never ended as abandoned while aidenctl is alive, and a dead aidenctl is noticed as the board says.
package enum RunHeartbeat {
    package static func interval(staleAfterSeconds: UInt64?) -> Duration {
        let third = (staleAfterSeconds ?? 300) / 3
        return .seconds(Int64(min(60, max(5, third))))
    }
}
