import Dispatch

/// A named lane beside a daemon's executor, for work that blocks: an HTTP exchange, a file written and synced, a
/// pairing request waiting on bluetoothd, a terminal that reads slowly. A lane runs its work one at a time in the
/// order it was handed over, and the work hands what it learned back to the executor (`Runtime.enqueue`). The
/// executor and these lanes are the run model: besides them, only threads that wait on a descriptor (the HTTP
/// server's loops, libdbus's, libusb's, a socket's or the terminal's reader) exist, and they only hand work to the
/// executor.
package final class Lane: Sendable {
    /// `aiden.phone.http`: the name the lane's thread carries in a stack trace.
    package let name: String
    private let work: DispatchInbox<@Sendable () -> Void>

    package init(_ name: String) {
        self.name = name
        work = DispatchInbox(queue: DispatchQueue(label: name)) { $0() }
    }

    /// Runs `work` on the lane after everything handed to it before; returns at once.
    package func run(_ work: @escaping @Sendable () -> Void) {
        self.work.post(work)
    }

    /// Waits until everything handed to the lane before has run (shutdown, tests). Never from the lane's own work.
    package func drain() {
        work.waitUntilRun()
    }

    /// The same, waiting at most `limit`: a writer that never finishes (a reader that never reads) must not hold
    /// up an exit. Returns whether the lane got there.
    @discardableResult
    package func drain(within limit: Duration) -> Bool {
        let done = DispatchSemaphore(value: 0)
        run { done.signal() }
        let (seconds, attoseconds) = max(limit, .zero).components
        // Whole nanoseconds, saturating: a limit past what Dispatch counts waits as long as it can.
        let (whole, overflow) = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let nanoseconds =
            overflow ? Int.max : whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000)).partialValue
        return done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }
}
