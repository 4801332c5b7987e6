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
}
