#if canImport(Glibc)
import Glibc
#endif

/// A command started with `posix_spawnp` in this process's group (so it keeps the terminal), with its stderr
/// (and, when asked, its stdout) on pipes this process reads, every other descriptor inherited as it is, an
/// empty signal mask and the signals this process blocks or ignores put back to their defaults: aidenctl's
/// `task run` passes a command's output on and reaps it without the command noticing it is not run by a shell.
package struct SpawnedProcess: Sendable {
    /// How a command ended.
    package enum End: Equatable, Sendable {
        case exited(status: Int32)
        case killed(signal: Int32)
        /// Someone else reaped it (ECHILD): there is nothing better to say.
        case unknown
    }

    /// The process id, for signals (`send`).
    package let id: Int32
    /// The read end of the command's stderr, non-blocking.
    package let standardError: InputDescriptor
    /// The read end of its stdout when that is read, non-blocking.
    package let standardOutput: InputDescriptor?

    /// Starts `arguments` (the first looked up on PATH) with exactly `environment`, its signals in
    /// `defaultSignals` at their default action.
    package static func spawn(
        _ arguments: [String], environment: [String: String], pipeStandardOutput: Bool, defaultSignals: [Int32]
    ) throws(SystemCallError) -> SpawnedProcess {
        let errorPipe = try ReadPipe.make()
        var outputPipe: ReadPipe?
        if pipeStandardOutput {
            do {
                outputPipe = try ReadPipe.make()
            } catch {
                errorPipe.closeBoth()
                throw error
            }
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
        for number in defaultSignals { sigaddset(&defaults, number) }
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
            throw SystemCallError(operation: "posix_spawnp", code: rc)
        }
        return SpawnedProcess(
            id: pid, standardError: InputDescriptor(errorPipe.read),
            standardOutput: outputPipe.map { InputDescriptor($0.read) })
    }

    /// The command's end if it has ended (and reaps it), else nil; never blocks.
    package func reap() -> End? {
        var status: Int32 = 0
        let rc = waitpid(id, &status, WNOHANG)
        if rc == 0 || (rc < 0 && errno == EINTR) { return nil }
        guard rc == id else { return .unknown }
        // Linux's wait status: the low 7 bits are the signal that killed it (0: it exited), bits 8-15 its status.
        let signal = status & 0x7F
        if signal == 0 { return .exited(status: (status >> 8) & 0xFF) }
        return .killed(signal: signal)
    }

    /// Sends `signal` to process `id`; false when it is gone (or not ours to signal). Static, so a caller that
    /// keeps only the id (under its own lock, to never signal a reaped one) can send.
    @discardableResult
    package static func send(_ signal: Int32, to id: Int32) -> Bool {
        kill(id, signal) == 0
    }
}

/// A pipe for a command's output: close-on-exec both ends (only the dup2 in the child survives the exec), the
/// read end non-blocking for the poll loop.
private struct ReadPipe {
    let read: Int32
    let write: Int32

    static func make() throws(SystemCallError) -> ReadPipe {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemCallError(operation: "pipe", code: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return ReadPipe(read: ends[0], write: ends[1])
    }

    func closeBoth() {
        Glibc.close(read)
        Glibc.close(write)
    }
}
