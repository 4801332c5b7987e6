#if canImport(Glibc)
import Glibc
#endif

/// The signals the programs block, wait for, send or report, by name, and the one table of their names for
/// log lines and a command's end: callers hold plain numbers (`SignalWaiter`, `ChildProcess`) without libc.
package enum SignalNumber {
    package static let hangUp = SIGHUP
    package static let interrupt = SIGINT
    package static let quit = SIGQUIT
    package static let terminate = SIGTERM
    package static let kill = SIGKILL
    package static let child = SIGCHLD
    package static let brokenPipe = SIGPIPE
    package static let user1 = SIGUSR1
    package static let user2 = SIGUSR2
    package static let windowChanged = SIGWINCH

    /// `SIGTERM` for 15: the name a log line or a card should say; `signal N` for the rest.
    package static func name(of number: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS", SIGWINCH: "SIGWINCH",
        ]
        return names[number] ?? "signal \(number)"
    }
}
