/// State that only the executor touches, held without a lock. The executor runs one job at a time, so a lock
/// around such state is only ever taken uncontended, and it would hide an access from another thread (a
/// listener's, the watchdog's) instead of catching it: debug builds check every access here
/// (`Runtime.isOnExecutor`). What other threads must read is published apart from it (a `Mutex` or an atomic
/// beside it), by the executor.
package final class ExecutorConfined<Value>: @unchecked Sendable {
    private var value: Value
    private let runtime: any Runtime

    package init(_ value: Value, on runtime: any Runtime) {
        self.value = value
        self.runtime = runtime
    }

    /// Runs `body` with the value. Only on the executor, and not from inside another `withValue` of the same
    /// state (the exclusive access to `value` would overlap).
    package func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        assert(runtime.isOnExecutor, "state confined to the executor was touched from another thread")
        return try body(&value)
    }
}
