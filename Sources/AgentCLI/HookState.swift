/// What one agent session's hooks remember between their processes (each event is a process of its own): which
/// task the session is on, whether it is started, ended or waiting for the person, and the last step sent and
/// when, for `HookSession`'s rate limit. Kept in a small file per session (the executable's `HookStateFile`).
package struct HookState: Codable, Sendable, Equatable {
    /// The session's task number: a session that goes on after its task ended (after `Stop`) gets the next one.
    package var generation: UInt64 = 1
    package var started = false
    package var ended = false
    /// The task waits for the person (a notification or a permission request): the next tool news resumes it.
    package var waiting = false
    package var lastStep: String?
    /// When the last write was sent (seconds on the clock the shell passes in).
    package var lastWriteAt: Double?

    package init() {}
}
