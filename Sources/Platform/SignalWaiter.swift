#if canImport(Glibc)
import Glibc
#endif

/// Process signals taken synchronously with `sigwait` on the main thread, so none is ever lost.
///
/// Why not Dispatch: on Linux libdispatch catches signals with a handler of its own, and
/// `dispatchMain()` parks the main thread in `sigsuspend` with an empty mask, which unblocks every
/// signal there: a SIGTERM then takes its default action (the process dies without flushing) or
/// races the signal source. Here the signals are blocked first thing in `main`, before any thread
/// exists, so every thread inherits the mask and the kernel keeps a signal pending until the main
/// thread, done starting, takes it in `wait`.
package struct SignalWaiter: Sendable {
    private let set: sigset_t

    /// Blocks `signals` in the calling thread (and so in every thread started afterwards).
    package static func block(_ signals: [Int32]) -> SignalWaiter {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return SignalWaiter(set: set)
    }

    private init(set: sigset_t) {
        self.set = set
    }

    /// The signals that end a daemon, each after it has written what it holds: SIGTERM (systemd's stop),
    /// SIGINT (Ctrl-C), SIGQUIT (Ctrl-\\, `kill -QUIT`) and SIGHUP (the terminal went away, or an operator's
    /// `kill -HUP`: neither daemon has anything to reload, so it is a stop too, as systemd counts it: a clean
    /// one). Left to their default action they would end the process at once, losing the lazy writes.
    package static let stopping: [Int32] = [SIGTERM, SIGINT, SIGQUIT, SIGHUP]

    /// Takes the blocked signals one at a time, forever; `handler` may exit the process.
    package func wait(_ handler: (Int32) -> Void) -> Never {
        var set = self.set
        while true {
            var number: Int32 = 0
            guard sigwait(&set, &number) == 0 else { continue }
            handler(number)
        }
    }
}
