import Dispatch
import Platform
import Synchronization
import TestSupport
import Testing

/// State confined to the executor: reached from every kind of executor work, and a touch from another thread
/// stops a debug build rather than racing.
@Suite struct ExecutorConfinedTests {
    @Test func theExecutorKnowsItsOwnWork() {
        let runtime = SerialRuntime(label: "test.confined.where")
        #expect(!runtime.isOnExecutor, "the test's own thread")
        #expect(runtime.perform { runtime.isOnExecutor })
        let seen = Mutex<[Bool]>([])
        let done = DispatchSemaphore(value: 0)
        runtime.enqueue { seen.withLock { $0.append(runtime.isOnExecutor) } }
        runtime.schedule(after: .milliseconds(1)) {
            seen.withLock { $0.append(runtime.isOnExecutor) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == [true, true])
        let other = SerialRuntime(label: "test.confined.other")
        #expect(!runtime.perform { other.isOnExecutor }, "another runtime's executor is not this one")
    }

    @Test func everyKindOfExecutorWorkReachesTheState() {
        let runtime = SerialRuntime(label: "test.confined.reach")
        let count = ExecutorConfined(0, on: runtime)
        for _ in 0..<100 { runtime.enqueue { count.withValue { $0 += 1 } } }
        let done = DispatchSemaphore(value: 0)
        runtime.schedule(after: .milliseconds(1)) {
            count.withValue { $0 += 1 }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(runtime.perform { count.withValue { $0 } } == 101)
    }

    /// The test runtime's executor is whichever thread runs its work, as the serial queue's is.
    @Test func theManualExecutorIsTheThreadRunningIt() {
        let runtime = ManualRuntime()
        #expect(!runtime.isOnExecutor)
        #expect(runtime.perform { runtime.isOnExecutor })
        let fired = Mutex<Bool?>(nil)
        runtime.schedule(after: .seconds(1)) { fired.withLock { $0 = runtime.isOnExecutor } }
        runtime.advance(by: .seconds(1))
        #expect(fired.withLock { $0 } == true)
        #expect(!runtime.isOnExecutor, "idle again")
    }

    /// A test that asks while a shell's thread runs the test runtime's executor gets its answer in its turn.
    @Test func aManualPerformWaitsForTheThreadRunningTheExecutor() {
        let runtime = ManualRuntime()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            runtime.enqueue {
                started.signal()
                release.wait()
            }
        }
        started.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { release.signal() }
        #expect(runtime.perform { runtime.isOnExecutor }, "ran on the executor, after the other thread's work")
    }

    #if DEBUG
    /// The check is an assertion: a debug build stops at a touch from another thread.
    @Test func aTouchFromAnotherThreadStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            let runtime = SerialRuntime(label: "test.confined.off")
            ExecutorConfined(0, on: runtime).withValue { $0 += 1 }
        }
    }
    #endif
}
