import Retry

/// When to fetch the newest snapshot: a pure state machine fed with events and the time they
/// happened (a `Duration` since any monotonic origin); the caller performs the returned action.
///
/// Rules (docs/phone-client.md): at most one fetch in flight; triggers during a fetch (any number)
/// cause exactly one trailing fetch after it; failures retry by themselves with exponential backoff;
/// an idle client refetches every `safetyInterval` in case a Wake was lost; after the person's answer was
/// recorded it refetches every `followInterval` for `followWindow`, because the answer's own Wake opened the
/// board's coalescing window and the Wake for what the answer causes (the agent stopping) waits it out.
package struct FetchScheduler: Sendable {
    /// What happened. Triggers are `started`, `wake`, `connected`, `linkUp` and `answerRecorded`.
    package enum Event: Sendable, Equatable, CaseIterable {
        /// The client started.
        case started
        /// A new Wake passed the `WakeFilter`.
        case wake
        /// The Wake transport (BLE or loopback) connected or reconnected.
        case connected
        /// The USB ECM link to the board came up.
        case linkUp
        /// The board recorded one of the person's answers: what the answer causes comes soon, and may come
        /// inside the Wake coalescing window the answer's own Wake opened.
        case answerRecorded
        /// The fetch in flight finished with an answer (any answer the card can show).
        case fetchSucceeded
        /// The fetch in flight failed (unreachable, 403, malformed, …).
        case fetchFailed
        /// The deadline the caller was last asked to schedule has passed.
        case deadlineReached
    }

    /// What the caller must do now.
    package enum Action: Sendable, Equatable {
        /// Start one fetch and report its end with `fetchSucceeded` or `fetchFailed`.
        case startFetch
        /// Arm the single timer to deliver `deadlineReached` at this time (same origin as `now`),
        /// replacing any earlier deadline.
        case scheduleDeadline(at: Duration)
        case none
    }

    package struct Configuration: Sendable, Equatable {
        /// The delay after each run of failures: doubling from the first failure's to the longest.
        package var backoff: Backoff
        /// How long an idle client waits before fetching anyway.
        package var safetyInterval: Duration
        /// How often a client refetches while it follows an answer.
        package var followInterval: Duration
        /// How long after an answer was recorded the client follows it: longer than the board's Wake
        /// coalescing window (750 ms), after which the Wake for the answer's consequence comes by itself.
        package var followWindow: Duration

        package init(
            backoff: Backoff = Backoff(base: .milliseconds(250), cap: .seconds(8)),
            safetyInterval: Duration = .seconds(60),
            followInterval: Duration = .milliseconds(100),
            followWindow: Duration = .seconds(1)
        ) {
            precondition(backoff.base > .zero, "backoff must grow from > 0")
            precondition(safetyInterval > .zero, "the safety interval must be positive")
            precondition(followInterval > .zero, "the follow interval must be positive")
            self.backoff = backoff
            self.safetyInterval = safetyInterval
            self.followInterval = followInterval
            self.followWindow = followWindow
        }
    }

    private enum State: Sendable, Equatable {
        /// No fetch in flight; a safety fetch is due at `deadline` (nil before the first fetch).
        case idle(deadline: Duration?)
        /// One fetch in flight; `trailing` records that a trigger arrived since it started.
        case fetching(trailing: Bool)
        /// The last fetch failed; the retry is due at `retryAt`.
        case backingOff(retryAt: Duration)
    }

    package let configuration: Configuration
    private var state: State = .idle(deadline: nil)
    /// Failures since the last success; sets the backoff delay.
    package private(set) var consecutiveFailures = 0
    /// Until when the client follows the last recorded answer (nil: it follows none).
    package private(set) var followingUntil: Duration?

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// When the caller's timer should fire next, nil when no timer is needed (a fetch is in flight,
    /// or nothing has started yet).
    package var nextDeadline: Duration? {
        switch state {
        case .idle(let deadline): deadline
        case .fetching: nil
        case .backingOff(let retryAt): retryAt
        }
    }

    package var isFetching: Bool {
        if case .fetching = state { return true }
        return false
    }

    package mutating func handle(_ event: Event, at now: Duration) -> Action {
        switch event {
        case .started, .linkUp:
            // A new link is the usual cure for an unreachable board: retry at full speed.
            consecutiveFailures = 0
            return trigger(interruptingBackoff: true)
        case .connected:
            return trigger(interruptingBackoff: true)
        case .wake:
            // During backoff the retry serves the Wake: a Wake over BLE says nothing about the
            // HTTP path (USB may be unplugged), so it must not defeat the backoff.
            return trigger(interruptingBackoff: false)
        case .answerRecorded:
            // The board just answered over HTTP, so no backoff is running; if one were, its retry serves this.
            followingUntil = now + configuration.followWindow
            return trigger(interruptingBackoff: false)
        case .fetchSucceeded:
            guard case .fetching(let trailing) = state else { return .none }
            consecutiveFailures = 0
            if trailing { return startFetch() }
            let deadline = idleDeadline(after: now)
            state = .idle(deadline: deadline)
            return .scheduleDeadline(at: deadline)
        case .fetchFailed:
            guard case .fetching = state else { return .none }
            consecutiveFailures += 1
            // The retry also serves any trigger that arrived during the failed fetch.
            let retryAt = now + configuration.backoff.delay(afterFailures: consecutiveFailures)
            state = .backingOff(retryAt: retryAt)
            return .scheduleDeadline(at: retryAt)
        case .deadlineReached:
            return deadlineReached(at: now)
        }
    }

    /// The next fetch of an idle client: the next follow-up while it follows an answer, else the safety fetch.
    private mutating func idleDeadline(after now: Duration) -> Duration {
        if let until = followingUntil {
            if now < until { return min(now + configuration.followInterval, until) }
            followingUntil = nil
        }
        return now + configuration.safetyInterval
    }

    private mutating func trigger(interruptingBackoff: Bool) -> Action {
        switch state {
        case .idle:
            return startFetch()
        case .fetching:
            state = .fetching(trailing: true)
            return .none
        case .backingOff:
            return interruptingBackoff ? startFetch() : .none
        }
    }

    private mutating func deadlineReached(at now: Duration) -> Action {
        switch state {
        case .fetching, .idle(deadline: nil):
            return .none
        case .idle(deadline: .some(let due)), .backingOff(retryAt: let due):
            // A timer may fire early or late; only the deadline we hold counts.
            return now >= due ? startFetch() : .scheduleDeadline(at: due)
        }
    }

    private mutating func startFetch() -> Action {
        state = .fetching(trailing: false)
        return .startFetch
    }
}
