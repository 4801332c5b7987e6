import FoundationEssentials
import Glibc
import Platform
import Synchronization

/// A `Runtime` the test drives: time moves only when the test says so, timers fire in deadline order
/// as it passes them, and work handed to the executor runs at once on the calling thread unless the
/// executor is already running (then it waits its turn, as on the real serial queue). Spawned
/// asynchronous work waits until `drain()`. Nothing sleeps, so transcripts are exact.
package final class ManualRuntime: Runtime {
    private struct Timer {
        let deadline: Duration
        let id: UInt64
        let work: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var executorQueue: [@Sendable () -> Void] = []
        var executorBusy = false
        /// The thread running the executor's work while `executorBusy`.
        var executorThread: pthread_t?
        var spawned: [@Sendable () async -> Void] = []
        var timers: [Timer] = []
        var nextID: UInt64 = 0
        /// How far the wall clock was set away from the monotonic clock (`stepWallClock`).
        var wallStep: Double = 0
    }

    private let state = Mutex(State())
    private let wallOrigin: Date

    package init(wallOrigin: Date = Date(timeIntervalSince1970: 1_780_000_000)) {
        self.wallOrigin = wallOrigin
    }

    package func monotonicNow() -> Duration { state.withLock { $0.now } }

    package func wallNow() -> Date {
        let (now, step) = state.withLock { ($0.now, $0.wallStep) }
        let (seconds, attoseconds) = now.components
        return wallOrigin.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18 + step)
    }

    /// Sets the wall clock `seconds` forward (negative: back), as NTP or a person would; the monotonic clock
    /// and the timers do not move.
    package func stepWallClock(by seconds: Double) {
        state.withLock { $0.wallStep += seconds }
    }

    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            state.executorQueue.append(work)
            guard !state.executorBusy else { return false }
            state.executorBusy = true
            state.executorThread = pthread_self()
            return true
        }
        if runNow { runExecutor() }
    }

    /// The thread that is running the executor's work now, as on the real serial queue.
    package var isOnExecutor: Bool {
        let me = pthread_self()
        return state.withLock { state in state.executorThread.map { pthread_equal($0, me) != 0 } ?? false }
    }

    package func perform<Value: Sendable>(_ work: @Sendable () -> Value) -> Value {
        withoutActuallyEscaping(work) { work in
            let result = Mutex<Value?>(nil)
            enqueue { result.withLock { $0 = work() } }
            // `enqueue` ran it at once, unless another thread is running the executor (a shell's thread handing
            // work over): then it runs in its turn, before that thread leaves the executor idle. Only a call from
            // inside executor work finds no result, which the real runtime forbids too.
            if result.withLock({ $0 == nil }), !isOnExecutor { awaitIdleExecutor() }
            guard let value = result.withLock({ $0 }) else {
                preconditionFailure("ManualRuntime.perform called from inside the executor")
            }
            return value
        }
    }

    @discardableResult
    package func schedule(at deadline: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let id = state.withLock { state in
            state.nextID += 1
            state.timers.append(Timer(deadline: deadline, id: state.nextID, work: work))
            return state.nextID
        }
        return ManualScheduledWork { [weak self] in self?.state.withLock { $0.timers.removeAll { $0.id == id } } }
    }

    package func spawn(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { $0.spawned.append(work) }
    }

    /// The deadlines of timers not yet fired or cancelled, in order.
    package var pendingTimers: [Duration] { state.withLock { $0.timers.map(\.deadline).sorted() } }

    /// Time passes inside work the executor is doing (a slow fsync): the clock moves by `step` and no timer
    /// fires; the next `advance` fires the ones it passed, late, as a busy executor does.
    package func elapse(_ step: Duration) {
        state.withLock { $0.now += step }
    }

    /// Moves time forward by `step`, firing due timers on the way (see `advance(to:)`).
    package func advance(by step: Duration) {
        advance(to: monotonicNow() + step)
    }

    /// Moves time to `time`, running each timer due by then in deadline order, with the clock at
    /// its deadline when it runs. Work another thread is running on the executor (a shell's own queue handing
    /// work back, as the phone's record writer does) ends first, and each timer's work has run when it returns,
    /// as on the real serial queue: the test never looks before the executor is done.
    package func advance(to time: Duration) {
        awaitIdleExecutor()
        while let timer = nextDue(by: time) {
            enqueue(timer.work)
            awaitIdleExecutor()
        }
        state.withLock { $0.now = max($0.now, time) }
    }

    /// Waits until no thread runs the executor. Only from the test's own thread, never from executor work.
    package func awaitIdleExecutor() {
        while state.withLock({ $0.executorBusy }) { usleep(50) }
    }

    /// Runs spawned asynchronous work in order (including work it spawns) until none is left.
    package func drain() async {
        while let work = state.withLock({ $0.spawned.isEmpty ? nil : $0.spawned.removeFirst() }) {
            await work()
        }
    }

    /// `advance(to:)` for asynchronous shells: drains spawned work before and after every timer.
    package func advance(to time: Duration) async {
        await drain()
        while let timer = nextDue(by: time) {
            enqueue(timer.work)
            await drain()
        }
        state.withLock { $0.now = max($0.now, time) }
    }

    private func nextDue(by time: Duration) -> Timer? {
        state.withLock { state -> Timer? in
            guard
                let next = state.timers.filter({ $0.deadline <= time }).min(by: {
                    ($0.deadline, $0.id) < ($1.deadline, $1.id)
                })
            else { return nil }
            state.timers.removeAll { $0.id == next.id }
            state.now = max(state.now, next.deadline)
            return next
        }
    }

    private func runExecutor() {
        while let work = state.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.executorQueue.isEmpty else {
                state.executorBusy = false
                state.executorThread = nil
                return nil
            }
            return state.executorQueue.removeFirst()
        }) {
            work()
        }
    }
}

private struct ManualScheduledWork: ScheduledWork {
    let onCancel: @Sendable () -> Void

    func cancel() { onCancel() }
}
