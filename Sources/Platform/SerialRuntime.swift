import Dispatch
import FoundationEssentials
import Synchronization

/// The real runtime: one serial Dispatch queue is the executor, `ContinuousClock` the monotonic clock.
/// Idle means idle: nothing polls, a timer is a single armed Dispatch deadline, and spawned async work runs
/// on `asyncExecutor`, never on Swift's global executor (whose first job starts a 1 s libdispatch timer that
/// never stops: `DispatchTaskExecutor`).
package final class SerialRuntime: Runtime {
    private let queue: DispatchQueue
    /// Where `enqueue` hands work to `queue`.
    private let work: DispatchInbox<@Sendable () -> Void>
    /// Set on `queue` only, so work can tell whether it runs there (`isOnExecutor`).
    private let executorKey = DispatchSpecificKey<Bool>()
    /// Where `spawn`'s tasks, and the child tasks they start, run.
    package let asyncExecutor: DispatchTaskExecutor
    private let origin = ContinuousClock.now
    /// When the probe now waiting on the executor was handed to it (nil: none waiting).
    private let probeSentAt = Mutex<Duration?>(nil)

    package init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: executorKey, value: true)
        work = DispatchInbox(queue: queue) { $0() }
        asyncExecutor = DispatchTaskExecutor(label: label + ".async")
    }

    package func monotonicNow() -> Duration { ContinuousClock.now - origin }

    package func wallNow() -> Date { Date() }

    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        self.work.post(work)
    }

    package var isOnExecutor: Bool { DispatchQueue.getSpecific(key: executorKey) == true }

    package func perform<Value: Sendable>(_ work: @Sendable () -> Value) -> Value {
        dispatchPrecondition(condition: .notOnQueue(queue))
        self.work.waitUntilRun()
        return queue.sync(execute: work)
    }

    @discardableResult
    package func schedule(at deadline: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let scheduled = DispatchScheduledWork(item: DispatchWorkItem(block: work))
        let delay = deadline - monotonicNow()
        if delay <= .zero {
            // Due now: after what was handed over before, as `enqueue` runs it. `asyncAfter` would put it on the
            // queue at once, ahead of the inbox's next batch.
            enqueue { scheduled.runUnlessCancelled() }
        } else {
            queue.asyncAfter(deadline: .now() + .nanoseconds(Self.nanoseconds(delay)), execute: scheduled.item)
        }
        return scheduled
    }

    package func spawn(_ work: @escaping @Sendable () async -> Void) {
        Task(executorPreference: asyncExecutor) { await work() }
    }

    /// Whether the executor keeps up, for the watchdog: a probe handed to it has not waited longer
    /// than `limit`. Each call hands over a new probe when none is waiting, so a wedged job (whatever
    /// its owner) shows within one watchdog period after `limit`.
    package func isResponsive(within limit: Duration) -> Bool {
        let now = monotonicNow()
        let sendProbe = probeSentAt.withLock { sentAt -> Bool? in
            if let sentAt { return now - sentAt < limit ? false : nil }
            sentAt = now
            return true
        }
        guard let sendProbe else { return false }
        if sendProbe { enqueue { [self] in probeSentAt.withLock { $0 = nil } } }
        return true
    }

    /// Whole nanoseconds in `duration`, clamped to what Dispatch accepts.
    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return Int.max }
        return Int(clamping: whole + attoseconds / 1_000_000_000)
    }
}

private struct DispatchScheduledWork: ScheduledWork, @unchecked Sendable {
    /// DispatchWorkItem is thread-safe but not annotated Sendable in this toolchain's Dispatch.
    let item: DispatchWorkItem

    func cancel() { item.cancel() }

    func runUnlessCancelled() {
        if !item.isCancelled { item.perform() }
    }
}
