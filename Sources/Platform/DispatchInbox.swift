import Dispatch
import Synchronization

/// Work handed to a serial Dispatch queue from any thread, run there in the order it was handed over, without
/// an allocation by Dispatch for each item.
///
/// `DispatchQueue.async` takes a continuation for every call from the calling thread's cache, or from the
/// heap when that is empty, and gives it back, after the work, to the cache of the worker thread that ran it.
/// libdispatch lets each thread keep 1,024 of them on Linux and has no setting for it. A thread that only hands
/// work over (a bus reader, the Wake receiver, the executor handing work to a lane) allocates every time, and
/// every worker that runs the work keeps what it frees: up to about 80 KiB a worker, for as long as the worker
/// lives, which the phone's heap showed after a few hundred answers. An inbox instead holds what it is handed
/// in an array and runs one user-data source on the queue, whose handler takes everything handed over since it
/// last ran: handing over appends under a lock and, when the inbox was empty, merges 1 into the source.
///
/// `@unchecked Sendable`: a Dispatch source is thread-safe but not annotated Sendable in this toolchain's Dispatch.
package final class DispatchInbox<Item: Sendable>: @unchecked Sendable {
    private let storage: Storage
    private let queue: DispatchQueue
    /// Cancelled by `deinit`, whose cancel handler still runs what was handed over and had not run: work handed
    /// over is never dropped, as `DispatchQueue.async` never dropped it.
    private let source: any DispatchSourceUserDataAdd

    /// Runs `run` on `queue` for each item handed over, in order, one at a time with the queue's other work.
    package init(queue: DispatchQueue, run: @escaping @Sendable (Item) -> Void) {
        let storage = Storage()
        self.storage = storage
        self.queue = queue
        source = DispatchSource.makeUserDataAddSource(queue: queue)
        source.setEventHandler { storage.runHandedOver(run) }
        source.setCancelHandler { storage.runHandedOver(run) }
        source.activate()
    }

    deinit { source.cancel() }

    /// Hands `item` over; returns at once.
    package func post(_ item: Item) {
        if storage.append(.item(item)) { source.add(data: 1) }
    }

    /// Returns once everything handed over before the call has run. Never from the queue's own work.
    ///
    /// `DispatchQueue.sync` alone would not wait for it: a source handed work while its handler runs is queued
    /// again only when the handler returns, behind a `sync` that came in meanwhile.
    package func waitUntilRun() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        guard !storage.isIdle else { return }
        let done = DispatchSemaphore(value: 0)
        if storage.append(.marker(done)) { source.add(data: 1) }
        done.wait()
    }

    private enum Entry: Sendable {
        case item(Item)
        /// Signalled when the handler reaches it: everything handed over before it has run.
        case marker(DispatchSemaphore)
    }

    /// What was handed over and not yet taken, and the handler's own array, kept between runs so that a batch
    /// costs no allocation once both have grown to the daemon's largest batch.
    private final class Storage: Sendable {
        private let state = Mutex(State())

        private struct State {
            var posted: [Entry] = []
            var spare: [Entry] = []
            /// Handed over and not yet run, the batch being run included.
            var unfinished = 0
        }

        /// Appends `entry`; returns whether the inbox was empty, so that a run of the handler must be asked for.
        func append(_ entry: Entry) -> Bool {
            state.withLock { state in
                state.posted.append(entry)
                state.unfinished += 1
                return state.posted.count == 1
            }
        }

        var isIdle: Bool { state.withLock { $0.unfinished == 0 } }

        func runHandedOver(_ run: (Item) -> Void) {
            var batch = state.withLock { state in
                let batch = state.posted
                state.posted = state.spare
                state.spare = []
                return batch
            }
            for entry in batch {
                switch entry {
                case .item(let item): run(item)
                case .marker(let done): done.signal()
                }
            }
            let count = batch.count
            batch.removeAll(keepingCapacity: true)
            state.withLock { state in
                state.spare = batch
                state.unfinished -= count
            }
        }
    }
}
