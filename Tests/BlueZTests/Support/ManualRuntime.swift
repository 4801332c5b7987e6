import Synchronization

@testable import BlueZ

/// A `BlueZRuntime` driven by the test: spawned work waits in a queue until `drain()`, timers fire only when
/// `advance(to:)` moves time past them. Nothing sleeps, so transcripts are exact.
final class ManualRuntime: BlueZRuntime {
    private struct Timer {
        let deadline: Duration
        let id: UInt64
        let work: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var queue: [@Sendable () async -> Void] = []
        var timers: [Timer] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func now() -> Duration { state.withLock { $0.now } }

    func spawn(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { $0.queue.append(work) }
    }

    func wake(at deadline: Duration, _ work: @escaping @Sendable () -> Void) -> any BlueZTimer {
        let id = state.withLock { state in
            state.nextID += 1
            state.timers.append(Timer(deadline: deadline, id: state.nextID, work: work))
            return state.nextID
        }
        return ManualTimer { [weak self] in self?.state.withLock { $0.timers.removeAll { $0.id == id } } }
    }

    /// Runs queued work in order (including work it queues) until nothing is left.
    func drain() async {
        while let work = state.withLock({ $0.queue.isEmpty ? nil : $0.queue.removeFirst() }) {
            await work()
        }
    }

    /// Moves time to `time`, firing due timers in deadline order and draining after each.
    func advance(to time: Duration) async {
        await drain()
        while let timer = state.withLock({ state -> Timer? in
            guard
                let next = state.timers.filter({ $0.deadline <= time }).min(by: {
                    ($0.deadline, $0.id) < ($1.deadline, $1.id)
                })
            else { return nil }
            state.timers.removeAll { $0.id == next.id }
            state.now = max(state.now, next.deadline)
            return next
        }) {
            timer.work()
            await drain()
        }
        state.withLock { $0.now = max($0.now, time) }
    }

    /// The deadlines of timers not yet fired, in order.
    var pendingTimers: [Duration] { state.withLock { $0.timers.map(\.deadline).sorted() } }
}

private struct ManualTimer: BlueZTimer {
    let onCancel: @Sendable () -> Void

    func cancel() { onCancel() }
}
