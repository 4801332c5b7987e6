import Dispatch
import FoundationEssentials

/// The real runtime: one serial Dispatch queue is the executor, `ContinuousClock` the monotonic clock.
/// Idle means idle: nothing polls, and a timer is a single armed Dispatch deadline.
package final class SerialRuntime: Runtime {
    private let queue: DispatchQueue
    private let origin = ContinuousClock.now

    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    package func monotonicNow() -> Duration { ContinuousClock.now - origin }

    package func wallNow() -> Date { Date() }

    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    package func perform<Value: Sendable>(_ work: @Sendable () -> Value) -> Value {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return queue.sync(execute: work)
    }

    @discardableResult
    package func schedule(at deadline: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let item = DispatchWorkItem(block: work)
        let delay = max(.zero, deadline - monotonicNow())
        queue.asyncAfter(deadline: .now() + .nanoseconds(Self.nanoseconds(delay)), execute: item)
        return DispatchScheduledWork(item: item)
    }

    package func spawn(_ work: @escaping @Sendable () async -> Void) {
        Task { await work() }
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
}
