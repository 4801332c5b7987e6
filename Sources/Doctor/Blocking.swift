import Dispatch
import Platform
import Synchronization

/// Runs async work to completion from synchronous code: the doctors are plain commands that ask buses
/// (every call bounded by its own timeout) one after the other. The work runs on an executor of its own, never
/// on Swift's shared pool: a caller blocked here on one of that pool's few threads must not be what the work
/// waits for.
package enum Blocking {
    private static let executor = DispatchTaskExecutor(label: "aiden.doctor.blocking")

    package static func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = result.withLock({ $0 }) else { preconditionFailure("signalled before the result was set") }
        return value
    }
}
