import AgentCLI
import Platform
import Synchronization

/// The signals of `task run`, taken on a thread of their own with `sigwaitinfo` (they are blocked in every
/// other thread, so none is lost and none interrupts a request to the board).
///
/// SIGINT, SIGTERM and SIGHUP are passed on to the command, unless the terminal sent them (`SI_KERNEL`):
/// then the whole foreground process group, the command included, already has it, and a second copy would
/// cut short a command that cleans up on the first. Either way the run counts as stopped. A stop that comes
/// before the command started keeps it from starting. SIGCHLD and every stop wake the main loop through a
/// pipe.
final class SignalRelay: Sendable {
    static let stopSignals = [SignalNumber.interrupt, SignalNumber.terminate, SignalNumber.hangUp]

    private struct State {
        var child: Int32 = 0
        /// The first stop signal that came.
        var stop: Int32?
    }

    private let state = Mutex(State())
    /// Read by the main loop's poll; one byte per signal.
    let wakes: WakePipe

    /// Blocks the signals in the calling thread (call it before any other thread exists) and starts taking
    /// them; fails when the pipe or the thread cannot be made.
    static func start() throws(SystemCallError) -> SignalRelay {
        let signals = SignalWaiter.block(stopSignals + [SignalNumber.child])
        // A SIGCHLD ignored by whoever started aidenctl would reap the command before we could read its status.
        SignalWaiter.restoreDefaultAction(SignalNumber.child)
        let relay = SignalRelay(wakes: try WakePipe.make())
        _ = try JoinableThread.started { relay.take(signals) }
        return relay
    }

    private init(wakes: WakePipe) {
        self.wakes = wakes
    }

    /// The stop signal that came first, if any.
    var stop: Int32? { state.withLock { $0.stop } }

    /// Runs `spawn` unless a stop came first (then returns nil without running it), and from then on passes
    /// stops to the process it started. Under the lock, so a signal is either seen before or passed on.
    func startChild(_ spawn: () -> ChildProcess.Spawn) -> ChildProcess.Spawn? {
        state.withLock { state in
            guard state.stop == nil else { return nil }
            let result = spawn()
            if case let .started(child) = result { state.child = child.pid }
            return result
        }
    }

    /// Reaps the command if it has ended, under the lock: from then on no stop is passed to its pid, which
    /// the system may give to another process.
    func reap(_ child: ChildProcess) -> RunTermination? {
        state.withLock { state in
            guard let termination = child.reap() else { return nil }
            state.child = 0
            return termination
        }
    }

    /// Sends `number` to the command while it runs (never to a pid it no longer holds); false when none runs.
    @discardableResult
    func signalChild(_ number: Int32) -> Bool {
        state.withLock { state in
            guard state.child > 0 else { return false }
            return SpawnedProcess.send(number, to: state.child)
        }
    }

    private func take(_ signals: SignalWaiter) {
        while true {
            let received = signals.next()
            if received.number != SignalNumber.child {
                // The kernel sends a terminal's signals (SI_KERNEL) to the whole foreground group.
                let fromTerminal = received.fromKernel
                state.withLock { state in
                    if state.stop == nil { state.stop = received.number }
                    if state.child > 0, !fromTerminal { SpawnedProcess.send(received.number, to: state.child) }
                }
            }
            wakes.wake()
        }
    }
}
