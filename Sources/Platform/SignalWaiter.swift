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

    /// One signal taken by `next`, with whether the kernel sent it rather than a process: a terminal's Ctrl-C or
    /// hangup comes from the kernel, to the whole foreground process group.
    package struct Received: Equatable, Sendable {
        package let number: Int32
        package let fromKernel: Bool

        package init(number: Int32, fromKernel: Bool) {
            self.number = number
            self.fromKernel = fromKernel
        }
    }

    /// Takes the next of the blocked signals (sigwaitinfo), with who sent it: for a thread of its own that
    /// decides per signal whether to pass it on (aidenctl's `task run` does not repeat a terminal's).
    package func next() -> Received {
        var set = self.set
        while true {
            var info = siginfo_t()
            let number = sigwaitinfo(&set, &info)
            guard number > 0 else { continue }
            return Received(number: number, fromKernel: info.si_code == SI_KERNEL)
        }
    }

    /// Puts `number`'s action back to the default. A SIGCHLD that whoever started the process ignored would have
    /// the kernel reap children before their status could be read.
    package static func restoreDefaultAction(_ number: Int32) {
        signal(number, SIG_DFL)
    }

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
