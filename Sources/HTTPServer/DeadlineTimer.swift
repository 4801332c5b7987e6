import Dispatch
import Synchronization

/// A one-shot timer on its own queue for the sweep of the header and request deadlines and of held answers'
/// limits, armed for one instant at a time: the
/// server's idle hours cost no wake-ups (a repeating sweep woke every listener once a second).
final class DeadlineTimer: Sendable {
    /// DispatchSource is thread-safe; Swift does not know it.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer
    /// The instant armed for (the server's clock), nil when disarmed.
    private let armedFor = Mutex<Duration?>(nil)

    init(queue: DispatchQueue) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .distantFuture)
        // Active from the start (a source released before it is ever resumed crashes libdispatch), with a handler
        // already: activating one without a handler makes libdispatch warn in the journal. `setHandler` replaces it.
        timer.setEventHandler {}
        timer.resume()
    }

    func setHandler(_ handler: @escaping @Sendable () -> Void) {
        timer.setEventHandler(handler: handler)
    }

    /// Arms for `instant` (nil: leaves it as it is) unless armed for it or earlier already. `now` is the same
    /// clock's present. A millisecond late, since a connection is overdue only once its deadline has passed.
    func arm(at instant: Duration?, now: Duration) {
        guard let instant else { return }
        armedFor.withLock { armed in
            if let armed, armed <= instant { return }
            armed = instant
            let delay = max(instant - now, .zero) + .milliseconds(1)
            let (seconds, attoseconds) = delay.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .milliseconds(10))
        }
    }

    /// The timer fired: it is armed for nothing until the next `arm`.
    func fired() {
        armedFor.withLock { $0 = nil }
    }

    func cancel() { timer.cancel() }
}
