import AgentCLI

#if canImport(Glibc)
import Glibc
#endif

/// The command `task run` runs, spawned with `posix_spawnp` in aidenctl's process group (so it keeps the
/// terminal), with its stderr (and, for progress, its stdout) on pipes aidenctl reads, every other
/// descriptor inherited as it is, and the signal mask and dispositions aidenctl changed put back.
struct ChildProcess {
    let pid: pid_t
    /// aidenctl's read end of the command's stderr, non-blocking.
    let standardError: Int32
    /// aidenctl's read end of the command's stdout when it is read for progress, non-blocking.
    let standardOutput: Int32?

    /// Signals `task run` blocks or ignores, which the command gets at their defaults.
    static let resetSignals = [SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT]

    /// What became of a spawn.
    enum Spawn {
        case started(ChildProcess)
        /// It cannot run (`RunTermination.notStarted`).
        case failed(RunTermination)
    }

    /// Starts `arguments` (looked up on PATH) with `environment`.
    static func spawn(_ arguments: [String], environment: [String: String], pipeStandardOutput: Bool) -> Spawn {
        guard let errorPipe = ChildPipe.make() else { return .failed(notStarted(errno)) }
        let outputPipe = pipeStandardOutput ? ChildPipe.make() : nil
        if pipeStandardOutput && outputPipe == nil {
            errorPipe.close()
            return .failed(notStarted(errno))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)
        if let outputPipe { posix_spawn_file_actions_adddup2(&actions, outputPipe.write, 1) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in resetSignals { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        Glibc.close(errorPipe.write)
        if let outputPipe { Glibc.close(outputPipe.write) }
        guard rc == 0 else {
            Glibc.close(errorPipe.read)
            if let outputPipe { Glibc.close(outputPipe.read) }
            return .failed(notStarted(rc))
        }
        return .started(ChildProcess(pid: pid, standardError: errorPipe.read, standardOutput: outputPipe?.read))
    }

    /// The command's end if it has ended (reaped), else nil; never blocks.
    func reap() -> RunTermination? {
        var status: Int32 = 0
        let rc = waitpid(pid, &status, WNOHANG)
        if rc == 0 || (rc < 0 && errno == EINTR) { return nil }
        guard rc == pid else { return .exited(1) }  // ECHILD: someone else reaped it; nothing better to say
        // Linux's wait status: the low 7 bits are the signal that killed it (0: it exited), bits 8-15 its status.
        let signal = status & 0x7F
        if signal == 0 { return .exited((status >> 8) & 0xFF) }
        return .killed(signal: signal, name: Self.name(of: signal))
    }

    /// `SIGTERM` and the like, for the card; `signal N` for the rest.
    static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    /// A shell's statuses: 127 when the program is not there, 126 when it cannot be executed.
    private static func notStarted(_ code: Int32) -> RunTermination {
        let reason = String(cString: strerror(code))
        return .notStarted(reason: reason, status: code == ENOENT || code == ENOTDIR ? 127 : 126)
    }
}

/// A pipe whose ends do not leak into the command (close-on-exec), the read end non-blocking.
struct ChildPipe {
    let read: Int32
    let write: Int32

    static func make() -> ChildPipe? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return ChildPipe(read: ends[0], write: ends[1])
    }

    func close() {
        Glibc.close(read)
        Glibc.close(write)
    }
}
