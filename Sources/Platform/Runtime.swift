import FoundationEssentials

/// Time and order for one daemon, as one seam: the two clocks it reads, and the serial executor on
/// which its state machines run. Other threads (the HTTP server's loops, libdbus, libusb, signals) only
/// hand work to the executor; timers fire on it. Tests substitute a manual runtime that moves time by hand
/// and runs the same code without sleeping.
package protocol Runtime: Sendable {
    /// Time since a fixed origin; never goes backwards. Deadlines are expressed on this clock.
    func monotonicNow() -> Duration

    /// Wall-clock time, only for timestamps people read (it can jump).
    func wallNow() -> Date

    /// Runs `work` on the executor, after everything handed to it before.
    func enqueue(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` on the executor and returns its result to a caller on another thread, which
    /// waits meanwhile. Never call it from the executor itself.
    func perform<Value: Sendable>(_ work: @Sendable () -> Value) -> Value

    /// Runs `work` on the executor once `monotonicNow()` reaches `deadline`, unless cancelled first.
    @discardableResult
    func schedule(at deadline: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork

    /// Starts asynchronous work (a bus call awaiting its answer) concurrently with the executor;
    /// whatever it learns, it hands back with `enqueue`.
    func spawn(_ work: @escaping @Sendable () async -> Void)

    /// Whether the calling thread is running the executor's work now: what state confined to the executor
    /// (`ExecutorConfined`) checks in debug builds.
    var isOnExecutor: Bool { get }
}

/// Work armed with `Runtime.schedule(at:)`.
package protocol ScheduledWork: Sendable {
    /// Prevents the work from running if it has not started yet.
    func cancel()
}

extension Runtime {
    /// Runs `work` on the executor after `delay` from now.
    @discardableResult
    package func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        schedule(at: monotonicNow() + max(delay, .zero), work)
    }
}
