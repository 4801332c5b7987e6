import Dispatch
import Synchronization

/// Runs async work to completion from synchronous code: the doctors are plain commands that ask buses
/// (every call bounded by its own timeout) one after the other.
package enum Blocking {
    package static func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = result.withLock({ $0 }) else { preconditionFailure("signalled before the result was set") }
        return value
    }
}
