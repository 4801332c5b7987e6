import Platform

/// The one timer a shell keeps for its lifecycle's `nextDeadline`: re-armed when the deadline changes,
/// cancelled when there is none, so a waiting shell sleeps on exactly one timer and an idle one on none.
struct TimerSlot: Sendable {
    private var deadline: Duration?
    private var timer: (any ScheduledWork)?

    /// Makes the armed timer match `wanted`; `fire` runs when it is reached, with the deadline it was armed for.
    mutating func update(
        to wanted: Duration?, runtime: any Runtime, fire: @escaping @Sendable (Duration) -> Void
    ) {
        guard wanted != deadline else { return }
        timer?.cancel()
        timer = nil
        deadline = wanted
        guard let wanted else { return }
        timer = runtime.schedule(at: wanted) { fire(wanted) }
    }

    /// The timer for `fired` ran: forget it (unless another one replaced it already).
    mutating func fired(_ fired: Duration) {
        if deadline == fired {
            deadline = nil
            timer = nil
        }
    }

    mutating func cancel() {
        timer?.cancel()
        timer = nil
        deadline = nil
    }
}
