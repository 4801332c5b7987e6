/// Decides when the board sends a Wake, so that changes arriving at any rate (an agent
/// streaming tokens) become at most one Wake per window (docs/protocol.md §2.6, default 750 ms).
///
/// The rule: the first change after a quiet window is sent at once (leading edge); changes
/// during an open window produce exactly one Wake when the window ends (trailing edge); a
/// window opens at each Wake sent. So the last change is always followed by a Wake within one
/// window, and Wakes are never closer than one window.
///
/// The coalescer does no I/O and reads no clock: the caller passes `now` (a monotonic time
/// from any fixed origin), performs the returned `Action`, and keeps one timer. A
/// `scheduleDeadline` replaces any timer already set. A timer left over from an earlier
/// schedule may still fire: the coalescer answers it with `.none` or a fresh schedule, so the
/// caller never needs to cancel one.
///
/// A `.sendWake` may take a while to perform (the sequence's durable mark is written first, now and then):
/// the caller says when the Wake really went out (`wentOut(at:)`), and the window runs from then, so the
/// spacing holds where the Wake leaves the daemon, not only where it was decided.
package struct WakeCoalescer: Sendable {
    /// What the caller must do now.
    package enum Action: Equatable, Sendable {
        /// Send one Wake now (with a new sequence).
        case sendWake
        /// Call `deadlineReached(at:)` when the clock reaches this time; replaces any timer.
        case scheduleDeadline(Duration)
        /// Nothing: a timer is already set, or there is nothing to send.
        case none
    }

    private enum State: Equatable, Sendable {
        /// No Wake sent yet.
        case quiet
        /// A Wake was sent and its window ends at `until`; `pending` says a change arrived
        /// inside it and waits for the trailing edge. Once `until` has passed the window is
        /// over even though the state still names it: time only advances when we are called.
        case windowOpen(until: Duration, pending: Bool)
    }

    package static let defaultWindow: Duration = .milliseconds(750)

    /// The minimum spacing between Wakes; negative values are treated as zero.
    package let window: Duration
    private var state: State = .quiet

    package init(window: Duration = WakeCoalescer.defaultWindow) {
        self.window = max(window, .zero)
    }

    /// The state changed at `now`.
    package mutating func changed(at now: Duration) -> Action {
        switch state {
        case .quiet:
            return sendWake(at: now)
        case .windowOpen(let until, let pending):
            // Past the window's end: either it was quiet, or the timer for a pending change is
            // late. Either way the change can go out now without breaking the spacing.
            if now >= until { return sendWake(at: now) }
            if pending { return .none }
            state = .windowOpen(until: until, pending: true)
            return .scheduleDeadline(until)
        }
    }

    /// The timer set by `scheduleDeadline` fired at `now`. An early firing is answered with the
    /// same deadline again; a late one sends at once and opens the next window at `now`.
    package mutating func deadlineReached(at now: Duration) -> Action {
        guard case .windowOpen(let until, pending: true) = state else { return .none }
        if now < until { return .scheduleDeadline(until) }
        return sendWake(at: now)
    }

    /// The Wake `.sendWake` asked for went out at `now`: the window runs from then if that ends it later.
    /// Without this the window runs from the decision, and a slow send (a durable write before it) would
    /// bring the next Wake closer than one window to this one.
    package mutating func wentOut(at now: Duration) {
        guard case .windowOpen(let until, let pending) = state, now + window > until else { return }
        state = .windowOpen(until: now + window, pending: pending)
    }

    /// When the caller's timer should fire, or nil when no change is waiting.
    package var nextDeadline: Duration? {
        guard case .windowOpen(let until, pending: true) = state else { return nil }
        return until
    }

    /// Whether a change is waiting for the end of the current window.
    package var hasPendingChange: Bool { nextDeadline != nil }

    private mutating func sendWake(at now: Duration) -> Action {
        state = .windowOpen(until: now + window, pending: false)
        return .sendWake
    }
}
