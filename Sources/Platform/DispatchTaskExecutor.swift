import Dispatch

/// Where a daemon's asynchronous work runs (bus calls awaiting their answers): one serial Dispatch queue as a
/// `TaskExecutor`, preferred by every task the daemon starts, instead of Swift's default global executor.
///
/// On Linux the default global executor is libdispatch's global concurrent queues, and the first job a worker
/// thread of those queues runs starts libdispatch's thread-pool monitor: a timer on its manager thread that
/// fires every second for the rest of the process, even when nothing is queued. A daemon that ever awaited a
/// bus call would wake once a second while idle. A serial queue's workers are not monitored (they are
/// "overcommit" threads, created on demand and retired when idle), so with this executor idle stays idle.
package final class DispatchTaskExecutor: TaskExecutor {
    private let key = DispatchSpecificKey<Void>()
    /// The jobs, each with the executor it runs on: this one, unowned, which is safe because a task holds a
    /// reference to its preferred executor until it ends (`Task(executorPreference:)` takes one).
    private let jobs: DispatchInbox<(job: UnownedJob, executor: UnownedTaskExecutor)>

    package init(label: String) {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ())
        jobs = DispatchInbox(queue: queue) { $0.job.runSynchronously(on: $0.executor) }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        jobs.post((UnownedJob(job), asUnownedTaskExecutor()))
    }

    /// Whether the caller runs on this executor's queue (tests check where a task's steps ran).
    package var isCurrent: Bool { DispatchQueue.getSpecific(key: key) != nil }
}
