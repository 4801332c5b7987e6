import Dispatch
import Platform
import Synchronization
import Testing

/// What is handed to an inbox runs on its queue, once, in the order each thread handed it over, including what
/// the inbox's own work hands over while it runs.
@Suite(.timeLimit(.minutes(1))) struct DispatchInboxTests {
    @Test func eachThreadsItemsRunOnceInOrderOnTheQueue() {
        let queue = DispatchQueue(label: "test.inbox.order")
        let key = DispatchSpecificKey<Void>()
        queue.setSpecific(key: key, value: ())
        let seen = Mutex<[[Int]]>(Array(repeating: [], count: 4))
        let offQueue = Mutex(0)
        let inbox = DispatchInbox<(thread: Int, index: Int)>(queue: queue) { item in
            if DispatchQueue.getSpecific(key: key) == nil { offQueue.withLock { $0 += 1 } }
            seen.withLock { $0[item.thread].append(item.index) }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<2_000 { inbox.post((thread, index)) }
        }
        inbox.waitUntilRun()
        #expect(seen.withLock { $0 } == Array(repeating: Array(0..<2_000), count: 4))
        #expect(offQueue.withLock { $0 } == 0)
    }

    /// An item handed over by the inbox's own work runs after the batch it was handed over in, not within it.
    @Test func workHandedOverWhileRunningRunsAfterIt() {
        let queue = DispatchQueue(label: "test.inbox.reentrant")
        let seen = Mutex<[String]>([])
        let box = Mutex<DispatchInbox<String>?>(nil)
        let inbox = DispatchInbox<String>(queue: queue) { item in
            seen.withLock { $0.append(item) }
            if item == "first" { box.withLock { $0 }?.post("handed over by first") }
        }
        box.withLock { $0 = inbox }
        queue.sync {
            inbox.post("first")
            inbox.post("second")
        }
        queue.sync {}
        queue.sync {}
        #expect(seen.withLock { $0 } == ["first", "second", "handed over by first"])
        box.withLock { $0 = nil }
    }

    /// What was handed over and had not run when the inbox is released still runs, as `async`'s work would.
    @Test func workHandedOverIsNotDroppedWhenTheInboxIsReleased() {
        let queue = DispatchQueue(label: "test.inbox.release", attributes: .initiallyInactive)
        let seen = Mutex<[Int]>([])
        let last = DispatchSemaphore(value: 0)
        do {
            let inbox = DispatchInbox<Int>(queue: queue) { index in
                seen.withLock { $0.append(index) }
                if index == 99 { last.signal() }
            }
            for index in 0..<100 { inbox.post(index) }
        }
        queue.activate()
        #expect(last.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == Array(0..<100))
    }

    /// `waitUntilRun` returns only once what the caller handed over has run, while other threads keep the handler
    /// busy: the case a `sync` on the queue would get wrong.
    @Test func waitUntilRunWaitsForWhatWasHandedOverBefore() {
        let queue = DispatchQueue(label: "test.inbox.wait")
        let ranUpTo = Mutex<[Int]>(Array(repeating: -1, count: 4))
        let inbox = DispatchInbox<(thread: Int, index: Int)>(queue: queue) { item in
            ranUpTo.withLock { $0[item.thread] = item.index }
        }
        let missed = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<500 {
                inbox.post((thread, index))
                if index % 3 == 0 { inbox.post((thread, index)) }
                inbox.waitUntilRun()
                if ranUpTo.withLock({ $0[thread] }) != index { missed.withLock { $0 += 1 } }
            }
        }
        #expect(missed.withLock { $0 } == 0)
        #expect(ranUpTo.withLock { $0 } == Array(repeating: 499, count: 4))
    }
}
