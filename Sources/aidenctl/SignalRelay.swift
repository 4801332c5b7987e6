import AgentCLI
import Platform
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The signals of `task run`, taken on a thread of their own with `sigwaitinfo` (they are blocked in every
/// other thread, so none is lost and none interrupts a request to the board).
///
/// SIGINT, SIGTERM and SIGHUP are passed on to the command, unless the terminal sent them (`SI_KERNEL`):
/// then the whole foreground process group, the command included, already has it, and a second copy would
/// cut short a command that cleans up on the first. Either way the run counts as stopped. A stop that comes
/// before the command started keeps it from starting. SIGCHLD and every stop wake the main loop through a
/// pipe.
final class SignalRelay: Sendable {
    static let stopSignals = [SIGINT, SIGTERM, SIGHUP]

    private struct State {
        var child: pid_t = 0
        /// The first stop signal that came.
        var stop: Int32?
    }

    private let state = Mutex(State())
    /// Read by the main loop's poll; one byte per signal.
    let wakeDescriptor: Int32
    private let wakeWriter: Int32

    /// Blocks the signals in the calling thread (call it before any other thread exists) and starts taking
    /// them; nil if the pipe or the thread cannot be made.
    static func start() -> SignalRelay? {
        var set = sigset_t()
        sigemptyset(&set)
        for number in stopSignals + [SIGCHLD] { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // A SIGCHLD ignored by whoever started aidenctl would reap the command before we could read its status.
        signal(SIGCHLD, SIG_DFL)
        guard let pipe = ChildPipe.make() else { return nil }
        _ = fcntl(pipe.write, F_SETFL, fcntl(pipe.write, F_GETFL) | O_NONBLOCK)
        let relay = SignalRelay(wakeDescriptor: pipe.read, wakeWriter: pipe.write)
        let waiting = set
        guard JoinableThread.start({ relay.take(waiting) }) != nil else { return nil }
        return relay
    }

    private init(wakeDescriptor: Int32, wakeWriter: Int32) {
        self.wakeDescriptor = wakeDescriptor
        self.wakeWriter = wakeWriter
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
            return kill(state.child, number) == 0
        }
    }

    /// Empties the wake pipe (after poll said it is readable).
    func drainWakes() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeDescriptor, &bytes, bytes.count) > 0 {}
    }

    private func take(_ set: sigset_t) {
        var set = set
        while true {
            var info = siginfo_t()
            let number = sigwaitinfo(&set, &info)
            guard number > 0 else { continue }
            if number != SIGCHLD {
                let fromTerminal = info.si_code == SI_KERNEL
                state.withLock { state in
                    if state.stop == nil { state.stop = number }
                    if state.child > 0, !fromTerminal { kill(state.child, number) }
                }
            }
            var byte: UInt8 = 1
            _ = write(wakeWriter, &byte, 1)
        }
    }
}
