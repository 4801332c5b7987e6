/// Time and concurrency for the BlueZ shells, as a seam: the real one uses the continuous clock and tasks;
/// tests use a manual one that runs spawned work in order and fires timers when the test moves time.
package protocol BlueZRuntime: Sendable {
    /// Monotonic time since a fixed origin.
    func now() -> Duration
    /// Runs `work` (a bus call and the handling of its answer) concurrently.
    func spawn(_ work: @escaping @Sendable () async -> Void)
    /// Calls `work` once, when `now()` reaches `deadline`, unless cancelled first.
    func wake(at deadline: Duration, _ work: @escaping @Sendable () -> Void) -> any BlueZTimer
}

/// A timer armed with `BlueZRuntime.wake`.
package protocol BlueZTimer: Sendable {
    func cancel()
}

/// The real runtime: `ContinuousClock`, unstructured tasks, `Task.sleep` timers (nothing polls).
package struct SystemBlueZRuntime: BlueZRuntime {
    private let origin = ContinuousClock.now

    package init() {}

    package func now() -> Duration { ContinuousClock.now - origin }

    package func spawn(_ work: @escaping @Sendable () async -> Void) {
        Task { await work() }
    }

    package func wake(at deadline: Duration, _ work: @escaping @Sendable () -> Void) -> any BlueZTimer {
        let instant = origin + deadline
        return TaskTimer(
            task: Task {
                do {
                    try await Task.sleep(until: instant, clock: .continuous)
                } catch {
                    return  // cancelled
                }
                work()
            })
    }
}

private struct TaskTimer: BlueZTimer {
    let task: Task<Void, Never>

    func cancel() { task.cancel() }
}
