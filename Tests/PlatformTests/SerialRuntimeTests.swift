import Dispatch
import Foundation
import Platform
import Synchronization
import Testing

/// The real executor: order, timers, cancellation, and the watchdog's probe.
@Suite struct SerialRuntimeTests {
    @Test func workRunsInTheOrderItWasHandedOver() {
        let runtime = SerialRuntime(label: "test.order")
        let seen = Mutex<[Int]>([])
        for index in 0..<200 { runtime.enqueue { seen.withLock { $0.append(index) } } }
        #expect(runtime.perform { seen.withLock { $0 } } == Array(0..<200))
    }

    @Test func aCancelledTimerNeverRunsAndOthersRunInDeadlineOrder() {
        let runtime = SerialRuntime(label: "test.timers")
        let seen = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let now = runtime.monotonicNow()
        // The cancelled one is due well after it is cancelled, and before the last one: by the time
        // the last one runs, it would have run.
        let cancelled = runtime.schedule(at: now + .milliseconds(300)) { seen.withLock { $0.append("cancelled") } }
        runtime.schedule(at: now + .milliseconds(400)) {
            seen.withLock { $0.append("late") }
            done.signal()
        }
        runtime.schedule(at: now + .milliseconds(30)) { seen.withLock { $0.append("early") } }
        cancelled.cancel()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == ["early", "late"])
    }

    /// A timer already due when the executor's own work schedules it runs after the work that work handed over
    /// before it, as `enqueue` would; one cancelled before its turn does not run.
    @Test func aTimerAlreadyDueRunsAfterWorkHandedOverBeforeIt() {
        let runtime = SerialRuntime(label: "test.due")
        let seen = Mutex<[String]>([])
        runtime.enqueue {
            runtime.enqueue { seen.withLock { $0.append("handed over") } }
            runtime.schedule(at: runtime.monotonicNow()) { seen.withLock { $0.append("due") } }
            runtime.schedule(at: .zero) { seen.withLock { $0.append("cancelled") } }.cancel()
        }
        for _ in 0..<3 { _ = runtime.perform { 0 } }
        #expect(seen.withLock { $0 } == ["handed over", "due"])
    }

    /// A job that never ends makes the executor unresponsive once a probe has waited past the limit;
    /// when it ends, the executor is responsive again.
    @Test func theProbeNoticesAWedgedExecutor() {
        let runtime = SerialRuntime(label: "test.probe")
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        runtime.enqueue {
            started.signal()
            release.wait()
        }
        started.wait()
        #expect(runtime.isResponsive(within: .milliseconds(50)), "the first call only hands over a probe")
        let deadline = Date().addingTimeInterval(10)
        while runtime.isResponsive(within: .milliseconds(50)), Date() < deadline { usleep(10_000) }
        #expect(!runtime.isResponsive(within: .milliseconds(50)), "the probe waited past the limit")
        release.signal()
        runtime.perform {}  // the probe ran after the job
        #expect(runtime.isResponsive(within: .milliseconds(50)))
    }

    /// Spawned work never runs on Swift's global executor: on Linux its first job starts libdispatch's
    /// thread-pool monitor, a timer that wakes the daemon every second for good. The task prefers the
    /// runtime's executor, and its steps after an await resumed from another thread, and its child tasks,
    /// run there too.
    @Test func spawnedWorkRunsOnTheRuntimesTaskExecutorNotTheGlobalOne() {
        let runtime = SerialRuntime(label: "test.spawn")
        let seen = Mutex<[String: Bool]>([:])
        let done = DispatchSemaphore(value: 0)
        runtime.spawn {
            let preference = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
            seen.withLock { $0["has a preference"] = preference != nil }
            seen.withLock { $0["starts there"] = runtime.asyncExecutor.isCurrent }
            await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
                DispatchQueue(label: "test.elsewhere").async { resumed.resume() }
            }
            seen.withLock { $0["resumes there"] = runtime.asyncExecutor.isCurrent }
            let children = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<3 { group.addTask { runtime.asyncExecutor.isCurrent } }
                return await group.reduce(true) { $0 && $1 }
            }
            seen.withLock { $0["children there"] = children }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(
            seen.withLock { $0 }
                == ["has a preference": true, "starts there": true, "resumes there": true, "children there": true])
    }
}
